import {
  type BrowserAction,
  noPageContent,
  validatorsOf,
  type ScrapeExecutionFacts,
  type ScrapeRequest,
  type ScrapeResultBody,
} from '@lib/contracts';
import { OTHER_ORIGIN_FRAME_LIMIT, readOtherOriginFrames, serialisePage, withFramesInlined } from './page-serialisation';
import { CREDIT_COST } from '@lib/plans';
import { type TargetGuard } from '@lib/target-guard';
import { Logger } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, CDPSession, HTTPResponse, Page } from 'rebrowser-puppeteer-core';
import { type ContentValidator } from '../content-validation/content-validator';
import { type ExtractionSpec, InvalidSelectorError, parseSelector, type SelectorExtractor } from '../extraction/selector-extractor';
import { ENGINES } from '../engines/engine-table';
import { type PageFormatter } from '../formats/page-formatter';
import { type Guidance, type GuidanceAdvisor } from '../guidance/guidance-advisor';
import { type ProxyRotation, proxySettingsOf } from '../proxy-rotation/proxy-rotation';
import { BrowserCapacityExhaustedError, BrowserShareExceededError, InvalidScrapeRequestError } from '../scrape-engine.errors';
import { attemptWithRetries } from '../scrape-attempts/scrape-attempts';
import { assembleScrapeResult } from '../scrape-attempts/scrape-result-assembly';
import { type ActionError, ActionRunner, type EvaluateResult } from './action-runner';
import { BrowserFailure, firstLine, isBrowserGone, netErrorFailure, withinDeadline } from './browser-failures';
import { BrowserUnavailableError } from './browser-launcher';
import { BrowserBusyError, type BrowserLease, type BrowserPool, type BrowserTenant, SlotShareExceededError } from './browser-pool';
import { type ContextReserve } from './context-reserve';
import { NetworkSettle } from './network-settle';
import { type EgressSession, type RefusedRequest, REFUSAL_HEADER } from './egress-filter';
import { fingerprintProfileFor } from './fingerprint-profile';
import { type CapturedRequest, NetworkRecorder } from './network-recorder';
import { PageBudget, type PageBudgetLimits } from './page-budget';
import { dressPage } from './page-identity';
import { capturePageScreenshot } from './page-screenshot';

/** What one page may take: time to load, and memory (PageBudget). */
export interface BrowserPageLimits extends PageBudgetLimits {
  /** Page load (navigation to the `load` event), ms. */
  navigationMs: number;
}

/** Resource types a light browser skips unless a screenshot needs them. */
const LIGHT_SKIPPED = new Set(['image', 'font', 'media']);
// How long closing a context may take before its browser counts as hung.
const CLOSE_TIMEOUT_MS = 5000;
const SCREENSHOT_TIMEOUT_MS = 30_000;
// After `load`, how long the network must stay quiet (and at most how long to wait for that), so
// content that scripts fetch after load is in the DOM.
const SETTLE_IDLE_MS = 75;
const SETTLE_MAX_MS = 2000;

interface Timings {
  queue_wait_ms: number;
  proxy_ms: number;
  browser_launch_ms: number;
  navigation_ms: number;
  actions_ms: number;
  extraction_ms: number;
  total_ms: number;
}

/** What one attempt produced: a loaded page's results, or a failure before the site answered. */
interface PageResult {
  statusCode: number;
  statusText: string;
  headers: Record<string, string>;
  contentType: string | null;
  html: string;
  finalUrl: string;
  screenshot: string | null;
  /** What the client should know about the page's capture (a clipped or failed screenshot). */
  notes: string[];
  /** Frames of other origins read into the content (include_frames): a credit each. */
  framesRead: number;
  evaluateResults: EvaluateResult[] | null;
  collected: Record<string, unknown> | null;
  actionError: ActionError | null;
  networkRequests: CapturedRequest[] | null;
}

/**
 * One browser-mode scrape (spec 1, 2.1, 2.3, 2.6, 2.7): a page slot from the pool, a fresh
 * isolated context whose only way out is its egress filter (SSRF guard + proxy rotation), a
 * consistent fingerprint, headers and cookies before the first byte, the page loaded, actions run,
 * then the final DOM as html/markdown with extraction, screenshot and captured traffic. The
 * context is always closed; a browser that will not close is replaced.
 */
export class BrowserScrapeExecutor {
  private readonly logger = new Logger('BrowserScrapeExecutor');

  constructor(
    private readonly pool: BrowserPool,
    private readonly reserve: ContextReserve,
    private readonly guard: TargetGuard,
    private readonly proxies: ProxyRotation,
    private readonly validator: ContentValidator,
    private readonly formatter: PageFormatter,
    private readonly extractor: SelectorExtractor,
    private readonly advisor: GuidanceAdvisor,
    private readonly limits: BrowserPageLimits,
  ) {}

  /** `tenant`: whose page this is, for the pool's fair share (absent: a page of no client, uncapped). */
  async execute(request: ScrapeRequest, tenant?: BrowserTenant): Promise<{ facts: ScrapeExecutionFacts; result: ScrapeResultBody }> {
    const started = performance.now();
    this.assertSelectors(request);
    const firstHop = await this.guard.vet(request.url);
    const timings: Timings = {
      queue_wait_ms: 0,
      proxy_ms: 0,
      browser_launch_ms: 0,
      navigation_ms: 0,
      actions_ms: 0,
      extraction_ms: 0,
      total_ms: 0,
    };
    const outcome = await attemptWithRetries({
      proxies: this.proxies,
      proxy: proxySettingsOf(request.use_proxy),
      retryOnBlock: request.retry_on_block,
      attempt: (proxyUrl) => this.attempt(request, tenant, proxyUrl, timings),
      judge: (page) =>
        this.validator.validate({
          statusCode: page.statusCode,
          headers: page.headers,
          contentType: page.contentType,
          body: page.html,
          rendered: true,
        }),
      isFailure: (error): error is BrowserFailure => error instanceof BrowserFailure,
    });
    const { answer: page, verdict } = outcome;
    const extractionStarted = performance.now();
    const { notes, ...body } = page ? this.shape(request, page) : { ...noPageContent(), metadata: null, notes: [] };
    timings.extraction_ms += performance.now() - extractionStarted;
    timings.total_ms = performance.now() - started;
    const { facts, result } = assembleScrapeResult({
      engine: ENGINES[request.browser_type],
      request,
      outcome,
      answered: page ? { statusCode: page.statusCode, statusText: page.statusText || STATUS_CODES[page.statusCode] || '' } : null,
      body,
      notes,
      timings: { ...timings },
      totalMs: timings.total_ms,
      targetHost: firstHop.hostname,
      advisor: this.advisor,
      // Each frame of another origin read into the content costs a credit beside the page's (include_frames, decision 0042).
      credits: page ? ENGINES[request.browser_type].credits + page.framesRead * CREDIT_COST.simple_request : undefined,
      // A failed action outranks "usable" and "empty" (the page may be empty because of it), not a block.
      adjust: (guidance: Guidance) =>
        page?.actionError && (guidance.success || verdict?.blockReason === 'empty_shell')
          ? actionFailedGuidance(guidance, page.actionError)
          : guidance,
    });
    const withActionError: ScrapeResultBody & { action_error: ActionError | null } = { ...result, action_error: page?.actionError ?? null };
    // The document's validators: what a revalidation asks the origin about (decision 0037).
    facts.validators = validatorsOf(page?.headers);
    return { facts, result: withActionError };
  }

  /** Selectors in extract and in actions compile before any browser work (→ 422). */
  private assertSelectors(request: ScrapeRequest): void {
    const specs: Record<string, ExtractionSpec> = {};
    if (request.extract) Object.assign(specs, request.extract);
    const walk = (actions: BrowserAction[], path: string) => {
      actions.forEach((action, index) => {
        const at = `${path}.${index}`;
        if ('selector' in action && typeof action.selector === 'string') specs[`${at}.selector`] = action.selector;
        if (action.type === 'collect') for (const [name, spec] of Object.entries(action.extract)) specs[`${at}.extract.${name}`] = spec;
        if (action.type === 'while') {
          if (action.condition.selector) specs[`${at}.condition.selector`] = action.condition.selector;
          walk(action.actions, `${at}.actions`);
        }
      });
    };
    walk(request.actions ?? [], 'actions');
    try {
      this.extractor.assertValid(specs);
    } catch (error) {
      if (error instanceof InvalidSelectorError) {
        const field = error.field.startsWith('actions.') ? error.field : `extract.${error.field}`;
        throw new InvalidScrapeRequestError(
          `${field}: "${error.selector}" is not a valid ${parseSelector(error.selector).kind.toUpperCase()} selector`,
          { field },
        );
      }
      throw error;
    }
  }

  private async attempt(
    request: ScrapeRequest,
    tenant: BrowserTenant | undefined,
    proxyUrl: string | null,
    timings: Timings,
  ): Promise<PageResult> {
    let lease: BrowserLease;
    const askedAt = performance.now();
    try {
      lease = await this.pool.lease(request.browser_type, tenant);
    } catch (error) {
      // A sync call is answered as what it is, with Retry-After (429 past its plan or after waiting
      // on its own pages, 503 when other clients' pages filled the worker for the whole wait), not
      // as a 200 after a long wait; a queued job's result says browser_busy.
      if (error instanceof SlotShareExceededError) throw new BrowserShareExceededError(error.message, error.retryAfterSeconds);
      if (error instanceof BrowserBusyError && tenant?.onOverPlan === 'refuse')
        throw new BrowserCapacityExhaustedError(error.message, error.retryAfterSeconds);
      if (error instanceof BrowserBusyError) {
        // The answer says how long it waited for a slot before giving up.
        timings.queue_wait_ms += Math.round(performance.now() - askedAt);
        throw new BrowserFailure('browser_busy', error.message);
      }
      if (error instanceof BrowserUnavailableError) throw new BrowserFailure('browser_unavailable', error.message);
      throw error;
    }
    timings.queue_wait_ms += lease.queueWaitMs;
    timings.browser_launch_ms += lease.launchMs;
    let egress: EgressSession | null = null;
    let context: BrowserContext | null = null;
    let broken = false;
    try {
      const prepared = await this.reserve.take(lease.browser, lease.kind, proxyUrl);
      egress = prepared.egress;
      context = prepared.context;
      return await this.render(request, lease, context, prepared.page, prepared.cdp, egress, proxyUrl, timings);
    } catch (error) {
      if (error instanceof BrowserFailure) throw error;
      if (isBrowserGone(error)) {
        broken = true;
        throw new BrowserFailure('browser_error', `The browser crashed or was closed while loading the page (${firstLine(error)}).`);
      }
      // Anything else the browser throws is still an answer the client can act on, never a 500.
      this.logger.error(`browser scrape failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      throw new BrowserFailure('browser_error', `The browser failed on this page (${firstLine(error)}).`);
    } finally {
      if (egress) timings.proxy_ms += egress.proxyMs;
      // Teardown runs after the answer is on its way. The page no longer counts against its
      // client's share, but the slot stays taken until teardown is done, so open contexts stay
      // bounded, and a context that will not close still gets its browser replaced.
      lease.pageEnded();
      void this.tearDown(lease, context, egress, broken);
    }
  }

  private async tearDown(
    lease: BrowserLease,
    context: BrowserContext | null,
    egress: EgressSession | null,
    broken: boolean,
  ): Promise<void> {
    try {
      if (context) broken = !(await closeWithin(context, CLOSE_TIMEOUT_MS)) || broken;
      await egress?.close().catch(() => undefined);
    } finally {
      await lease
        .release({ broken: broken && lease.browser.connected })
        .catch((error: unknown) => this.logger.warn(`releasing a browser slot: ${firstLine(error)}`));
    }
  }

  private async render(
    request: ScrapeRequest,
    lease: BrowserLease,
    context: BrowserContext,
    page: Page,
    cdp: CDPSession,
    egress: EgressSession,
    proxyUrl: string | null,
    timings: Timings,
  ): Promise<PageResult> {
    const profile = fingerprintProfileFor({
      windowSize: request.window_size,
      language: request.language,
      browserVersion: lease.version,
      clientHints: lease.clientHints,
    });
    await dressPage(page, cdp, profile, lease.kind === 'heavy');
    if (request.headers) await page.setExtraHTTPHeaders(request.headers);
    if (request.cookies) {
      const url = new URL(request.url);
      await context.setCookie(
        ...Object.entries(request.cookies).map(([name, value]) => ({
          name,
          value,
          domain: url.hostname,
          path: '/',
          secure: url.protocol === 'https:',
        })),
      );
    }
    if (lease.kind === 'light' && !request.screenshot) {
      await page.setRequestInterception(true);
      page.on('request', (r) => {
        if (r.isInterceptResolutionHandled()) return;
        void (LIGHT_SKIPPED.has(r.resourceType()) ? r.abort('blockedbyclient') : r.continue());
      });
    }
    // Both count from the first request: subscribed before the budget enables the Network domain,
    // and before the recorder asks for payload buffers on the same session.
    const settle = new NetworkSettle(cdp);
    const budget = await PageBudget.watch(cdp, this.limits);
    const recorder = request.network_capture ? new NetworkRecorder(cdp, request.network_capture.resource_types ?? null) : null;
    await recorder?.start();
    // A renderer that dies (out of memory, killed) leaves every pending call hanging: end the
    // request at once instead, with guidance; the context is closed and the browser kept. A page
    // past its memory budget ends the same way, as body_too_large.
    let crash: BrowserFailure | null = null;
    const crashed = new Promise<never>((_, reject) =>
      page.once('error', (error) => {
        crash = new BrowserFailure('browser_error', `The page crashed (its renderer process died: ${firstLine(error)}).`);
        reject(crash);
      }),
    );
    crashed.catch(() => undefined);
    const unlessCrashed = <T>(work: Promise<T>): Promise<T> => Promise.race([work, crashed, budget.exceeded]);

    const navigationStarted = performance.now();
    let response: HTTPResponse | null;
    try {
      try {
        response = await unlessCrashed(page.goto(request.url, { waitUntil: 'load', timeout: this.limits.navigationMs }));
      } catch (error) {
        throw this.navigationFailure(error, egress, proxyUrl);
      }
      if (!response) throw new BrowserFailure('browser_error', 'The navigation produced no response.');
      const refusal = response.headers()[REFUSAL_HEADER.toLowerCase()];
      if (refusal) throw refusedNavigation({ reason: refusal, message: egress.refused.at(-1)?.message ?? refusal });
      const upstreamFailure = proxyChainFailure(response.status(), proxyUrl !== null);
      if (upstreamFailure) throw upstreamFailure;
      await unlessCrashed(settle.settled({ idleMs: SETTLE_IDLE_MS, maxMs: SETTLE_MAX_MS }));
      const listen = request.network_capture?.listen_after_load_ms ?? 0;
      if (listen > 0) await sleep(listen);
    } finally {
      timings.navigation_ms += performance.now() - navigationStarted;
    }

    const actionsStarted = performance.now();
    const actions = request.actions?.length ? await unlessCrashed(new ActionRunner(page, this.extractor).run(request.actions)) : null;
    timings.actions_ms += performance.now() - actionsStarted;

    const extractionStarted = performance.now();
    try {
      await unlessCrashed(withDeadline(budget.assertHtmlWithin(page), 10_000, 'measuring the page'));
      // Shadow trees (open and closed) as declarative shadow roots and same-origin frames in place (decision 0042).
      const rendered = await unlessCrashed(withDeadline(serialisePage(cdp, page.url()), 10_000, 'reading the page content'));
      budget.assertReadWithin(rendered.html.length);
      // Frames of other origins, read as the browser rendered them when the client asks (a credit each).
      const framesRead =
        request.include_frames && rendered.otherOriginFrames.length > 0
          ? await unlessCrashed(
              withDeadline(
                readOtherOriginFrames(page, rendered.otherOriginFrames, (url) => refusedByGuard(egress, url)),
                30_000,
                'reading the frames',
              ),
            )
          : new Map<string, string>();
      const html = withFramesInlined(rendered.html, page.url(), framesRead);
      budget.assertReadWithin(html.length);
      const frameNote = otherOriginFramesNote(rendered.otherOriginFrames, framesRead, request.include_frames === true);
      if (rendered.unmatchedFrameDocuments > 0)
        frameNote.push(
          `The frames of ${rendered.unmatchedFrameDocuments} document(s) of this page could not be matched to their <iframe> elements (the page changed them while it was read): they are not included in its content.`,
        );
      const shot = request.screenshot
        ? await capturePageScreenshot(
            page,
            cdp,
            profile.viewport.deviceScaleFactor,
            (work) => unlessCrashed(withDeadline(work, SCREENSHOT_TIMEOUT_MS, 'taking the screenshot')),
            // The page's end (a crash, its budget, the browser gone) still ends the request.
            (error) => error === crash || (error instanceof BrowserFailure && error.errorType === 'body_too_large') || isBrowserGone(error),
          )
        : null;
      const networkRequests = recorder ? await recorder.entries() : null;
      const headers = response.headers();
      return {
        statusCode: response.status(),
        statusText: response.statusText(),
        headers,
        contentType: headers['content-type'] ?? null,
        html,
        finalUrl: page.url(),
        screenshot: shot?.screenshot ?? null,
        notes: [...(shot?.note ? [shot.note] : []), ...frameNote],
        framesRead: framesRead.size,
        evaluateResults: actions ? actions.evaluateResults : null,
        collected: actions?.collected ?? null,
        actionError: actions?.error ?? null,
        networkRequests,
      };
    } finally {
      timings.extraction_ms += performance.now() - extractionStarted;
    }
  }

  private navigationFailure(error: unknown, egress: EgressSession, proxyUrl: string | null): BrowserFailure {
    if (error instanceof BrowserFailure) return error;
    const message = firstLine(error);
    if (isBrowserGone(error))
      return new BrowserFailure('browser_error', `The browser crashed or was closed while loading the page (${message}).`);
    if (/timeout|timed out/i.test(message))
      return new BrowserFailure('timeout', `The page did not finish loading within ${this.limits.navigationMs} ms.`, true);
    const refused = egress.refused.at(-1);
    if (/ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY|ERR_EMPTY_RESPONSE/.test(message) && refused) return refusedNavigation(refused);
    if (/ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY/.test(message))
      return new BrowserFailure(proxyUrl ? 'proxy_error' : 'connection_error', `The connection to the site failed (${message}).`, true);
    const net = netErrorFailure(message);
    if (net) return net;
    this.logger.warn(`unclassified navigation failure: ${message}`);
    return new BrowserFailure('browser_error', `The page could not be loaded (${message}).`);
  }

  private shape(
    request: ScrapeRequest,
    page: PageResult,
  ): Omit<ScrapeResultBody, 'statusCode' | 'message' | 'executionTime' | 'potentiallyBlockedByCaptcha' | 'timings' | 'guidance'> & {
    notes: string[];
  } {
    const formatted = this.formatter.format(request, page.html, page.finalUrl, { scriptsRan: true });
    const extracted = formatted.extracted;
    // Top-level extract runs on the final DOM; what collect actions gathered sits beside it.
    const extractedData = extracted || page.collected ? { ...(page.collected ?? {}), ...(extracted ?? {}) } : null;
    return {
      html: request.format === 'html' ? page.html : null,
      markdown: formatted.markdown,
      metadata: formatted.metadata,
      notes: [...page.notes, ...formatted.notes],
      screenshot: page.screenshot,
      extracted_data: extractedData,
      evaluate_results: page.evaluateResults,
      network_requests: page.networkRequests,
      content_type: page.contentType,
      body_base64: null,
      body_url: null,
    };
  }
}

/** The page or one of its redirects led to a host the egress filter refused (never charged). */
/** Whether the egress filter refused connections to this URL's host and port (a frame there holds the refusal, not a page). */
function refusedByGuard(egress: EgressSession, url: string): boolean {
  try {
    const target = new URL(url);
    const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
    const host = target.hostname.replace(/^\[|\]$/g, '');
    return egress.refused.some((refusal) => refusal.host.replace(/^\[|\]$/g, '') === host && refusal.port === port);
  } catch {
    return true;
  }
}

/** What the guidance says of a page's frames from other origins: which were read into its content (a credit each), which were not and why. */
function otherOriginFramesNote(listed: string[], read: Map<string, string>, asked: boolean): string[] {
  if (listed.length === 0) return [];
  const unread = listed.filter((url) => !read.has(url));
  const notes: string[] = [];
  if (read.size > 0)
    notes.push(
      `Read ${read.size} frame(s) from other origins into the content, 1 credit each (include_frames): ${[...read.keys()].join(', ')}.`,
    );
  if (unread.length > 0) {
    const shown = `${unread.slice(0, 5).join(', ')}${unread.length > 5 ? ', …' : ''}`;
    notes.push(
      asked
        ? `${unread.length} frame(s) from other origins were not read (refused by the SSRF guard, past the ${OTHER_ORIGIN_FRAME_LIMIT}-frame limit, never loaded, or not answering): ${shown}.`
        : `The page embeds ${unread.length} frame(s) from other origins, not included in its content: ${shown}. Ask with include_frames: true to read them (1 credit each), or scrape a frame's URL.`,
    );
  }
  return notes;
}

function refusedNavigation(refused: Pick<RefusedRequest, 'reason' | 'message'>): BrowserFailure {
  return new BrowserFailure(
    refused.reason === 'dns_failed' ? 'dns_error' : 'target_blocked',
    `The page (or a redirect) leads to a target the SSRF guard refuses: ${refused.message}`,
  );
}

/** proxy-chain answers 590-599 when it could not reach the upstream proxy or the target. */
function proxyChainFailure(status: number, viaProxy: boolean): BrowserFailure | null {
  if (status < 590 || status > 599) return null;
  if (viaProxy) return new BrowserFailure('proxy_error', `The proxy failed (${status} ${STATUS_CODES[status] ?? ''}).`, true);
  if (status === 593) return new BrowserFailure('dns_error', 'The host name does not resolve.');
  return new BrowserFailure('connection_error', `The connection to the site failed (${STATUS_CODES[status] ?? status}).`, true);
}

function actionFailedGuidance(guidance: Guidance, error: ActionError): Guidance {
  return {
    ...guidance,
    success: false,
    error_type: 'action_failed',
    next_steps: [
      `Action ${error.action} (${error.type}) failed: ${error.message}.`,
      'The response holds the page as it was when the action failed: check the selector against its html, add a wait-for-selector before the action, or mark a click optional.',
    ],
    suggested_request: null,
    stop_reason: null,
  };
}

async function closeWithin(context: BrowserContext, ms: number): Promise<boolean> {
  const closed = context.close().then(
    () => true,
    (error: unknown) => isBrowserGone(error),
  );
  return Promise.race([closed, sleep(ms, false, { ref: false })]);
}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return withinDeadline(work, ms, () => new BrowserFailure('browser_error', `The page stopped responding while ${what}.`));
}
