import {
  type CrawlPlan,
  type CrawlView,
  isMainContentFallbackNote,
  type JobResultBody,
  ScrapeGuidance,
  ScrapeRequest,
  ScrapeResultBody,
  SUBJECTS,
  VIABILITY_WORST_CASE_CREDITS,
  ViabilityResult,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import type { AdmittedCall } from '../admission/caller.decorator';
import { CreditGate } from '../credits/credit-gate';
import { PlatformHealth } from '../health/platform-health';
import { SyncScrapeHandler } from '../sync-scrape/sync-scrape.handler';
import {
  AGENT_SCRAPE_FIELDS,
  argumentsOf,
  crawlRequestOf,
  CrawlSiteArguments,
  CRAWL_STATUS_PAGES,
  CrawlStatusArguments,
  mapRequestOf,
  MapSiteArguments,
  depthOf,
  DiscoverArguments,
  markdownRequestOf,
  NoArguments,
  ScrapeAsMarkdownArguments,
  scrapeRequestOf,
  ScrapeUrlArguments,
  windowOf,
} from './tool-arguments';
import { failureOf, failureResult, invalidArguments } from './tool-results';
import type { ToolName } from './tool-schemas';
import { DEFAULT_MAX_CHARS, describeWindow, MIN_CHARS, textWindowOf, TextWindowView } from './text-window';
import { SiteDiscoveryCalls } from '../site-discovery/site-discovery.calls';
import { oneLine, UntrustedContentFence } from './untrusted-content';

// A discover call waits for its slowest probe (a browser render with its own budget); the analyser decides failure, not this.
const DISCOVER_TIMEOUT_MS = 300_000;

/**
 * The tools of the agent endpoint, each the same use case as its REST operation, run on the
 * caller's admission: the same SSRF guard, credit holds, ledger entries and proxy approvals. What a
 * tool adds is the agent's view: page content fenced as untrusted, cut to a token budget, failures
 * as guidance the model can act on.
 */
@Injectable()
export class AgentToolbox {
  private readonly logger = new Logger('AgentToolbox');

  constructor(
    private readonly scrapes: SyncScrapeHandler,
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly credits: CreditGate,
    private readonly health: PlatformHealth,
    private readonly discovery: SiteDiscoveryCalls,
  ) {}

  async call(tool: ToolName, rawArguments: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const args = (rawArguments ?? {}) as Record<string, unknown>;
    try {
      switch (tool) {
        case 'scrape_url':
          return await this.scrapeUrl(rawArguments, admission);
        case 'scrape_as_markdown':
          return await this.scrapeAsMarkdown(rawArguments, admission);
        case 'discover':
          return await this.discover(rawArguments, admission);
        case 'map_site':
          return await this.mapSite(rawArguments, admission);
        case 'crawl_site':
          return await this.crawlSite(rawArguments, admission);
        case 'crawl_status':
          return await this.crawlStatus(rawArguments, admission);
        case 'list_proxy_countries':
          return await this.withoutArguments(tool, rawArguments, () => this.proxyCountries(admission));
        case 'check_billing':
          return await this.withoutArguments(tool, rawArguments, () => this.billing(admission));
        case 'health_check':
          return await this.withoutArguments(tool, rawArguments, () => this.healthCheck());
      }
    } catch (error) {
      const failure = failureOf(error, args);
      if (failure.error_type === 'internal_error')
        this.logger.error(`${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return failureResult(failure);
    }
  }

  /** What both scrape tools do first: validate, scrape as REST would, and cut the content to the window asked for. */
  private async windowedScrape<A extends { max_chars?: number; offset?: number }>(
    tool: ToolName,
    type: new () => A,
    raw: unknown,
    admission: AdmittedCall,
    requestOf: (args: A) => ScrapeRequest,
  ): Promise<WindowedScrape<A> | { ok: false; failure: CallToolResult }> {
    const parsed = await argumentsOf(type, raw);
    if (!parsed.ok) return { ok: false, failure: invalidArguments(tool, parsed.problems) };
    const request = requestOf(parsed.value);
    const { maxChars, offset } = windowOf(parsed.value);
    const result = await this.scrapes.scrape(request, admission);
    const body = (request.format === 'markdown' ? result.markdown : result.html) ?? '';
    const window = textWindowOf(body, offset, maxChars);
    const fence = new UntrustedContentFence();
    return {
      ok: true,
      args: parsed.value,
      request,
      result,
      window,
      fence,
      content: window.text.length > 0 ? fence.wrap(window.text, request.url, request.format) : null,
    };
  }

  private async scrapeUrl(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const scraped = await this.windowedScrape('scrape_url', ScrapeUrlArguments, raw, admission, scrapeRequestOf);
    if (!scraped.ok) return scraped.failure;
    const { request, result, window, fence, content } = scraped;
    const pageValues = pageDataOf(result);
    const pageData = pageValues ? fence.wrap(JSON.stringify(pageValues, null, 1), request.url, 'page_data') : null;
    const guidance = forAgent(result.guidance, (suggested) => pick(suggested, AGENT_SCRAPE_FIELDS));
    const binary = result.body_base64
      ? ` The response is binary (${oneLine(result.content_type ?? 'unknown type', 100)}): it is not shown here; download it with POST /v1/sync/download.`
      : '';

    const blocks: ContentBlock[] = [
      {
        type: 'text',
        text: [
          summaryLine(request.url, result, admission.creditsCharged) + binary,
          ...guidanceLines(guidance),
          describeWindow(
            window,
            `Call scrape_url again with the same arguments and offset={next} for the next part (the page is fetched and charged again).`,
          ),
        ].join('\n'),
      },
    ];
    if (content) blocks.push({ type: 'text', text: content });
    if (pageData) blocks.push({ type: 'text', text: pageData });
    if (result.screenshot) blocks.push({ type: 'image', data: result.screenshot, mimeType: 'image/png' });
    return {
      isError: guidance.success !== true,
      content: blocks,
      structuredContent: {
        url: request.url,
        status_code: result.statusCode,
        success: guidance.success === true,
        // The site's reason phrase and a page script's error text come from the page: one bounded line each, never a marker.
        message: oneLine(result.message, 200),
        format: request.format,
        content,
        content_window: windowFields(window),
        page_data: pageData,
        screenshot_attached: Boolean(result.screenshot),
        credits_charged: admission.creditsCharged,
        guidance,
        action_error: result.action_error ? { ...result.action_error, message: oneLine(result.action_error.message, 500) } : null,
        execution_time_s: result.executionTime,
      },
    };
  }

  private async scrapeAsMarkdown(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const scraped = await this.windowedScrape('scrape_as_markdown', ScrapeAsMarkdownArguments, raw, admission, markdownRequestOf);
    if (!scraped.ok) return scraped.failure;
    const { args, request, result, window, content: markdown } = scraped;
    const title = result.metadata?.title ? oneLine(result.metadata.title) : null;
    const finalUrl = oneLine(result.metadata?.final_url ?? request.url, 2048);
    // The engine says so when the page had no article and the whole page came back.
    const wholePage = !request.only_main_content || result.guidance.next_steps.some(isMainContentFallbackNote);
    const guidance = forAgent(result.guidance, (suggested) => ({
      url: suggested.url ?? request.url,
      ...(suggested.browser !== undefined ? { browser: suggested.browser } : {}),
      ...(suggested.retry_on_block !== undefined ? { retry_on_block: suggested.retry_on_block } : {}),
      ...(args.full_page ? { full_page: true } : {}),
    }));
    const header = [
      `Title: ${title ?? '(none)'}`,
      `URL: ${finalUrl}`,
      summaryLine(request.url, result, admission.creditsCharged) +
        (wholePage ? ' Whole page.' : ' Main content only (full_page=true for the whole page).'),
      ...guidanceLines(guidance),
      describeWindow(
        window,
        `Call scrape_as_markdown again with the same arguments and offset={next} for the next part (the page is fetched and charged again).`,
      ),
    ];
    const blocks: ContentBlock[] = [{ type: 'text', text: header.join('\n') }];
    if (markdown) blocks.push({ type: 'text', text: markdown });
    return {
      isError: guidance.success !== true,
      content: blocks,
      structuredContent: {
        url: request.url,
        final_url: finalUrl,
        title,
        status_code: result.statusCode,
        success: guidance.success === true,
        main_content_only: !wholePage,
        markdown,
        content_window: windowFields(window),
        credits_charged: admission.creditsCharged,
        guidance,
      },
    };
  }

  private async discover(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const parsed = await argumentsOf(DiscoverArguments, raw);
    if (!parsed.ok) return invalidArguments('discover', parsed.problems);
    const client = admission.client;
    const depth = depthOf(parsed.value);
    // As POST /v1/async/viability-test: refused up front when the month cannot cover the depth's worst case.
    await this.credits.assertAvailable(client, VIABILITY_WORST_CASE_CREDITS[depth], `a ${depth} discover`, admission.requestId);
    const reply = await this.bus.request(
      SUBJECTS.viability.analyse,
      { client_id: client.id, request_id: randomUUID(), url: parsed.value.url, depth, monthly_credits: client.limits.monthlyCredits },
      { correlationId: admission.requestId, timeoutMs: DISCOVER_TIMEOUT_MS },
    );
    admission.creditsCharged += reply.credits_charged;
    // Nothing reached the site because the address is not a public target (a metadata or private
    // IP, or a redirect to one): an error, as scrape_url answers it, not a verdict of "blocked".
    const { simple_request, extract_html, browser } = reply.verdict.tests;
    const probes = [simple_request, extract_html, browser].filter((test) => test !== null);
    if (probes.length > 0 && probes.every((test) => test.error === 'target_blocked'))
      return failureResult({
        error_type: 'target_blocked',
        message: `${oneLine(parsed.value.url, 2048)} is not a public address (or redirects to one): nothing was fetched; ${reply.credits_charged} credit${reply.credits_charged === 1 ? '' : 's'} charged.`,
        next_steps: [
          'Only public http(s) addresses can be fetched: private, loopback, link-local and cloud-metadata addresses are refused, redirects included. Use a public URL.',
        ],
        suggested_request: null,
      });
    const verdict = {
      ...reply.verdict,
      suggested_request: reply.verdict.suggested_request ? pick(reply.verdict.suggested_request, AGENT_SCRAPE_FIELDS) : null,
    };
    return {
      content: [{ type: 'text', text: verdictLines(verdict, depth, reply.credits_charged).join('\n') }],
      structuredContent: { url: parsed.value.url, depth, credits_charged: reply.credits_charged, verdict },
    };
  }

  private async mapSite(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const parsed = await argumentsOf(MapSiteArguments, raw);
    if (!parsed.ok) return invalidArguments('map_site', parsed.problems);
    const request = mapRequestOf(parsed.value);
    const { maxChars, offset } = windowOf(parsed.value);
    const map = await this.discovery.map(request, admission);
    const window = textWindowOf(map.urls.join('\n'), offset, maxChars);
    const fence = new UntrustedContentFence();
    const head = [
      `${map.count} URL${map.count === 1 ? '' : 's'} found from ${oneLine(map.url, 2048)} (robots.txt: ${map.robots.status}; ${map.sources.sitemap} from sitemaps, ${map.sources.links} from links; ${map.pages_fetched} pages fetched).`,
      map.truncated
        ? `The map stopped early (${map.stopped_by}): raise limit, page_fetches or max_depth for more.`
        : 'The map is complete within its scope.',
      `Skipped: ${Object.entries(map.skipped)
        .map(([reason, n]) => `${reason} ${n}`)
        .join(', ')}. ${admission.creditsCharged} credit${admission.creditsCharged === 1 ? '' : 's'} charged.`,
      describeWindow(
        window,
        `Call map_site again with the same arguments and offset={next} for the next part (the map runs and is charged again).`,
      ),
    ];
    const urls = window.text.length > 0 ? fence.wrap(window.text, map.url, 'urls') : null;
    const blocks: ContentBlock[] = [{ type: 'text', text: head.join('\n') }];
    if (urls) blocks.push({ type: 'text', text: urls });
    return {
      content: blocks,
      structuredContent: {
        url: map.url,
        count: map.count,
        truncated: map.truncated,
        stopped_by: map.stopped_by,
        robots: map.robots,
        pages_fetched: map.pages_fetched,
        skipped: map.skipped,
        urls,
        content_window: windowFields(window),
        credits_charged: admission.creditsCharged,
      },
    };
  }

  private async crawlSite(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const parsed = await argumentsOf(CrawlSiteArguments, raw);
    if (!parsed.ok) return invalidArguments('crawl_site', parsed.problems);
    const crawl = await this.discovery.startCrawl(crawlRequestOf(parsed.value), admission);
    const what = crawl.state === 'planning' ? 'A plan (dry run) is being made' : `A crawl of up to ${crawl.max_pages} pages started`;
    const text = [
      `${what} for ${oneLine(crawl.url, 2048)}: crawl_id ${crawl.crawl_id}, state ${crawl.state}.`,
      crawl.zero_pages_reason
        ? `It ended at once with no page: ${crawl.zero_pages_reason}.`
        : `Call crawl_status with crawl_id "${crawl.crawl_id}" to follow it and read its pages.`,
    ];
    return { content: [{ type: 'text', text: text.join('\n') }], structuredContent: { crawl, credits_charged: 0 } };
  }

  private async crawlStatus(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const parsed = await argumentsOf(CrawlStatusArguments, raw);
    if (!parsed.ok) return invalidArguments('crawl_status', parsed.problems);
    const crawlId = parsed.value.crawl_id.toLowerCase();
    const crawl = await this.discovery.crawl(crawlId, admission);
    const want = parsed.value.pages ?? CRAWL_STATUS_PAGES.default;
    const budget = parsed.value.max_chars ?? DEFAULT_MAX_CHARS;
    const lines = [crawlLine(crawl)];
    if (crawl.plan) lines.push(planLine(crawl.plan));
    let pages: string | null = null;
    const pageUrls: string[] = [];
    let nextCursor: string | null = null;
    if (want > 0 && crawl.results_path) {
      const listed = await this.bus.unpack(
        await this.bus.request(
          SUBJECTS.jobs.listForClient,
          { client_id: admission.client.id, batch_id: crawlId, statuses: ['completed'], cursor: parsed.value.cursor, limit: want },
          { correlationId: admission.requestId, timeoutMs: 60_000 },
        ),
      );
      const share = Math.max(MIN_CHARS, Math.floor(budget / Math.max(1, listed.items.length)));
      const parts: string[] = [];
      for (const job of listed.items) {
        const reply = await this.bus.request(
          SUBJECTS.jobs.data,
          { client_id: admission.client.id, job_id: job.job_id },
          { correlationId: admission.requestId, timeoutMs: 60_000 },
        );
        if (!reply.found) continue;
        const body: JobResultBody = await this.bus.unpack(reply.result);
        const window = textWindowOf(body.markdown ?? body.html ?? '', 0, share);
        parts.push(
          `## ${job.url}\n${window.text}${window.truncated ? `\n[cut at ${window.end} of ${window.total_chars} characters]` : ''}`,
        );
        pageUrls.push(job.url);
      }
      nextCursor = listed.has_more ? listed.cursor_next : null;
      if (parts.length > 0) pages = new UntrustedContentFence().wrap(parts.join('\n\n'), crawl.url, 'markdown');
      lines.push(
        pageUrls.length > 0
          ? `Pages ${pageUrls.length} shown.${nextCursor ? ` Call crawl_status with cursor "${nextCursor}" for the next ones.` : crawl.status === 'completed' ? ' No more pages.' : ' More may come as the crawl goes on.'}`
          : 'No scraped page to show yet.',
      );
    }
    const blocks: ContentBlock[] = [{ type: 'text', text: lines.join('\n') }];
    if (pages) blocks.push({ type: 'text', text: pages });
    return {
      content: blocks,
      structuredContent: { crawl, pages, page_urls: pageUrls, next_cursor: nextCursor, credits_charged: 0 },
    };
  }

  private async proxyCountries(admission: AdmittedCall): Promise<CallToolResult> {
    const correlationId = admission.requestId;
    const [catalog, status] = await Promise.all([
      this.bus.request(SUBJECTS.proxies.countries, {}, { correlationId }),
      this.bus.request(SUBJECTS.proxies.status, { client_id: admission.client.id }, { correlationId }),
    ]);
    const text = [
      `Approved for this client (use_proxy "<code>"): ${status.approved_countries.join(', ') || 'none'}.`,
      `Pending approval: ${status.pending_countries.join(', ') || 'none'}.`,
      'use_proxy "any" needs no approval.',
      `All ${catalog.countries.length} countries a pool can be asked for: ${catalog.countries.map((c) => c.code).join(', ')}.`,
    ];
    return {
      content: [{ type: 'text', text: text.join('\n') }],
      structuredContent: {
        countries: catalog.countries,
        approved_countries: status.approved_countries,
        pending_countries: status.pending_countries,
      },
    };
  }

  private async billing(admission: AdmittedCall): Promise<CallToolResult> {
    const client = admission.client;
    const correlationId = admission.requestId;
    // Asked afresh (not the header cache): an agent checks before spending.
    const quota = await this.bus.request(
      SUBJECTS.billing.quotaQuery,
      { client_id: client.id, monthly_credits: client.limits.monthlyCredits },
      { correlationId, timeoutMs: 3000 },
    );
    const report = await this.bus.request(
      SUBJECTS.billing.billing,
      { client_id: client.id, month: quota.month, by_url: false },
      { correlationId },
    );
    const usage = report.clients[client.id];
    const requests = {
      simple_success: usage?.simple_success ?? 0,
      simple_failed: usage?.simple_failed ?? 0,
      browser_success: usage?.browser_success ?? 0,
      browser_failed: usage?.browser_failed ?? 0,
      total_requests: usage?.total_requests ?? 0,
    };
    const resetsAt = new Date(quota.resets_at * 1000).toISOString();
    const structured = {
      client_id: client.id,
      plan: client.plan,
      month: quota.month,
      credits: {
        limit: quota.limit,
        used: quota.used,
        remaining: quota.remaining,
        resets_at: resetsAt,
        charged: usage?.credits ?? { simple: 0, browser: 0, total: 0 },
      },
      requests,
      rate_limit_per_minute: client.limits.rateLimitPerMinute,
    };
    const text = [
      `${quota.month} (${client.plan} plan): ${quota.used} credits used of ${quota.limit ?? 'unlimited'}; ${quota.remaining ?? 'unlimited'} remaining; resets ${resetsAt}.`,
      `Requests: ${requests.total_requests} (simple ${requests.simple_success} ok / ${requests.simple_failed} failed, browser ${requests.browser_success} ok / ${requests.browser_failed} failed). Rate limit: ${client.limits.rateLimitPerMinute} per minute.`,
    ];
    return { content: [{ type: 'text', text: text.join('\n') }], structuredContent: structured };
  }

  private async healthCheck(): Promise<CallToolResult> {
    const report = await this.health.report();
    const down = Object.entries(report.services)
      .filter(([, s]) => s.status !== 'ok')
      .map(([name]) => name);
    const text =
      report.status === 'ok'
        ? `The platform is up (${report.runtime} runtime, version ${report.version}).`
        : `The platform is degraded: ${[
            ...Object.entries(report.checks)
              .filter(([, c]) => c.status !== 'ok')
              .map(([n]) => n),
            ...down,
          ].join(', ')} down.`;
    return { content: [{ type: 'text', text }], structuredContent: report as unknown as Record<string, unknown> };
  }

  private async withoutArguments(tool: ToolName, raw: unknown, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
    const parsed = await argumentsOf(NoArguments, raw);
    return parsed.ok ? run() : invalidArguments(tool, parsed.problems);
  }
}

interface WindowedScrape<A> {
  ok: true;
  args: A;
  request: ScrapeRequest;
  result: ScrapeResultBody;
  window: TextWindowView;
  fence: UntrustedContentFence;
  /** The window's text, fenced; null when the page has no text there. */
  content: string | null;
}

function pick(source: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((field) => source[field] !== undefined).map((field) => [field, source[field]]));
}

/** The guidance with its suggested request as arguments of the same tool. */
function forAgent(guidance: ScrapeGuidance, asArguments: (suggested: Record<string, unknown>) => Record<string, unknown>): ScrapeGuidance {
  return { ...guidance, suggested_request: guidance.suggested_request ? asArguments(guidance.suggested_request) : null };
}

function pageDataOf(result: ScrapeResultBody): Record<string, unknown> | null {
  const data: Record<string, unknown> = {};
  if (result.extracted_data) data.extracted_data = result.extracted_data;
  if (result.evaluate_results?.length) data.evaluate_results = result.evaluate_results;
  return Object.keys(data).length > 0 ? data : null;
}

function summaryLine(url: string, result: ScrapeResultBody, credits: number): string {
  const status = result.statusCode > 0 ? `HTTP ${result.statusCode}` : 'the site never answered';
  const outcome = result.guidance.success
    ? 'usable content'
    : `not usable (${result.guidance.error_type ?? 'failed'}${result.guidance.error_provider ? `, ${result.guidance.error_provider}` : ''})`;
  return `Scraped ${oneLine(url, 2048)}: ${status}, ${outcome}, ${credits} credit${credits === 1 ? '' : 's'} charged.`;
}

function guidanceLines(guidance: ScrapeGuidance): string[] {
  if (guidance.success && guidance.next_steps.length === 0) return [];
  const lines = guidance.next_steps.map((step) => `- ${step}`);
  if (guidance.stop_reason) lines.push(`Retrying will not help: ${guidance.stop_reason}`);
  if (guidance.suggested_request) lines.push(`Suggested arguments for the next attempt: ${JSON.stringify(guidance.suggested_request)}`);
  return lines.length > 0 ? ['Next steps:', ...lines] : [];
}

function crawlLine(crawl: CrawlView): string {
  const skipped = Object.entries(crawl.skipped)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  return (
    `Crawl ${crawl.crawl_id} of ${oneLine(crawl.url, 2048)}: ${crawl.state}; ${crawl.discovered} pages discovered, ${crawl.queued} queued, ${crawl.completed} scraped, ${crawl.failed} failed; ` +
    `${crawl.credits_charged} credits charged.${skipped ? ` Skipped: ${skipped}.` : ''}${crawl.zero_pages_reason ? ` No page scraped: ${crawl.zero_pages_reason}.` : ''}`
  );
}

function planLine(plan: CrawlPlan): string {
  const forecast = plan.forecast
    .map((f) => `${f.mode}: ${f.pages} pages, ${f.credits} credits${f.seconds === null ? '' : `, about ${Math.round(f.seconds)} s`}`)
    .join('; ');
  return (
    `Plan: ${plan.discovered} URLs${plan.truncated ? ' (at least)' : ''} in ${plan.sections.length} sections; recommended mode ${plan.recommended_mode ?? 'unknown'}; ` +
    `block rate ${plan.block_rate === null ? 'unknown' : `${Math.round(plan.block_rate * 100)} %`}. Forecast — ${forecast}. The sample analyses cost ${plan.credits_charged} credits.`
  );
}

function windowFields(window: TextWindowView) {
  return {
    offset: window.offset,
    end: window.end,
    total_chars: window.total_chars,
    truncated: window.truncated,
    next_offset: window.next_offset,
  };
}

function verdictLines(verdict: ViabilityResult, depth: string, credits: number): string[] {
  const blockers = [
    verdict.captcha_detected ? `CAPTCHA (${verdict.captcha_providers.join(', ') || 'unknown provider'})` : '',
    verdict.cloudflare_level !== 'none' ? `Cloudflare: ${verdict.cloudflare_level}` : '',
    verdict.login_wall.detected ? 'login wall' : '',
    verdict.protection.length > 0 ? `protection: ${verdict.protection.join(', ')}` : '',
  ].filter(Boolean);
  return [
    `Discover (${depth}) for ${oneLine(verdict.url, 2048)}: recommended strategy ${verdict.recommended_strategy}, difficulty ${verdict.difficulty}; ${credits} credit${credits === 1 ? '' : 's'} charged.`,
    `Blockers: ${blockers.join('; ') || 'none seen'}.`,
    `JavaScript required: ${verdict.javascript_required ? 'yes' : 'no'} (confidence ${verdict.browser_confidence}). Works with: ${[verdict.can_use_simple_request ? 'plain fetch' : '', verdict.can_use_extract_html ? 'main-content extraction' : '', verdict.can_use_browser ? 'browser' : ''].filter(Boolean).join(', ') || 'nothing tried worked'}.`,
    ...(verdict.api_detected
      ? [
          `JSON APIs behind the page${verdict.api_auth_required ? ' (need credentials)' : ''}: ${verdict.api_endpoints.map((e) => oneLine(e, 2048)).join(', ')}.`,
        ]
      : []),
    'Reasons:',
    ...verdict.reasons.map((reason) => `- ${oneLine(reason, 1000)}`),
    verdict.suggested_request
      ? `Suggested scrape_url arguments: ${JSON.stringify(verdict.suggested_request)}`
      : 'No scrape is suggested: the URL cannot be scraped as things stand.',
  ];
}
