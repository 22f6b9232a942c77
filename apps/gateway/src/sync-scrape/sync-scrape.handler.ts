import { randomUUID } from 'node:crypto';
import {
  type DocumentConversionResult,
  type UploadedDocumentRequest,
  deliveredUsableContent,
  DownloadRequest,
  CONTENT_WINDOW_FIELDS,
  PAGE_CACHE_FIELDS,
  type PageValidators,
  SyncScrapeRequest,
  DownloadResultBody,
  ProxyConfig,
  proxyCountryOf,
  ScrapeRequest,
  ScrapeResultBody,
  SUBJECTS,
  type WindowedScrapeRequest,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { CREDIT_COST } from '@lib/plans';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '@lib/runtime';
import { instanceToPlain } from 'class-transformer';
import type { AdmittedCall } from '../admission/caller.decorator';
import { WorkerLostError } from '@lib/errors';
import { ChargedExecution } from '../credits/charged-execution';
import { CountryProxyNotApprovedError } from '../gateway.errors';
import { EngineWatch } from './engine-watch';
import { PageCacheClient, type PageCacheMiss } from '@lib/page-cache';
import { contentBudgetOf, windowedAnswer } from '../token-budget/scrape-answer-window';

// Longer than the engine's own budget (simple: 30 s per attempt with retries and backoff; browser:
// queue wait, 30 s load, 90 s of actions, extraction), so the engine, not the transport, decides
// when a scrape has failed. A dead engine is noticed much sooner, by EngineWatch.
const ENGINE_RPC_TIMEOUT_MS = 300_000;

type EngineSubject = typeof SUBJECTS.scrape.execute | typeof SUBJECTS.scrape.download | typeof SUBJECTS.scrape.convertDocument;

/** The request as the engine takes it: a ScrapeRequest, without the page cache's and the content window's own fields. */
function engineRequestOf(request: ScrapeRequest): Record<string, unknown> {
  const plain = instanceToPlain(request);
  for (const field of [...PAGE_CACHE_FIELDS, ...CONTENT_WINDOW_FIELDS]) delete plain[field];
  return plain;
}

/** POST /v1/sync/scrape and /v1/sync/download: checks that need no fetch, then a charged engine call. */
@Injectable()
export class SyncScrapeHandler {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly charged: ChargedExecution,
    private readonly engines: EngineWatch,
    private readonly pageCache: PageCacheClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A request with max_age asks the page cache first (decision 0037): a fresh entry is the answer
   * (0 credits, nothing fetched); a stale one with the origin's validators is revalidated by the
   * engine (1 credit on a 304, no browser); otherwise the page is fetched as usual and a usable
   * result is kept for the next request.
   */
  async scrape(request: ScrapeRequest | SyncScrapeRequest | WindowedScrapeRequest, admission: AdmittedCall): Promise<ScrapeResultBody> {
    // With max_tokens (decision 0042) the answer is cut to the budget; a cursor that is not one is refused before any fetch.
    const budget = 'max_tokens' in request || 'cursor' in request ? contentBudgetOf(request as WindowedScrapeRequest) : null;
    const result = await this.scrapeWhole(request, admission);
    return budget ? windowedAnswer(result, request.format, budget) : result;
  }

  private async scrapeWhole(request: ScrapeRequest | SyncScrapeRequest, admission: AdmittedCall): Promise<ScrapeResultBody> {
    await this.assertProxyApproved(request.use_proxy, admission);
    const plain = engineRequestOf(request);
    const maxAge = 'max_age' in request ? request.max_age : undefined;
    if (maxAge === undefined) return this.fetched(plain, request.browser, admission, null);
    const caller = { clientId: admission.client.id, correlationId: admission.requestId };
    const lookupStarted = performance.now();
    const lookup = await this.pageCache.lookup(caller, plain, maxAge);
    if (lookup === null) return this.fetched(plain, request.browser, admission, null);
    if (lookup.state === 'fresh') {
      admission.timings.mark('validation');
      const served = this.pageCache.hit(lookup.entry, lookupStarted);
      await this.charged.free(admission);
      return served;
    }
    const miss = this.pageCache.missOf(lookup, String(plain.url), (request as SyncScrapeRequest).revalidate);
    return this.fetched(plain, request.browser, admission, miss);
  }

  /** One charged engine call; with the page cache, a 304 serves the stored page and a usable answer is kept. */
  private fetched(
    plain: Record<string, unknown>,
    browser: boolean,
    admission: AdmittedCall,
    miss: PageCacheMiss | null,
  ): Promise<ScrapeResultBody> {
    const cost = browser ? CREDIT_COST.browser_request : CREDIT_COST.simple_request;
    return this.charged.run(admission, 'sync-scrape', cost, async () => {
      // The plan's browser share travels with the call: past it the engine refuses at once (429).
      const base = { ...this.command(plain, admission), browser_slots: admission.client.limits.browserConcurrency };
      const ask = async (revalidate: PageValidators | null) => {
        const command = revalidate ? { ...base, revalidate, call_id: randomUUID() } : base;
        const reply = await this.callEngine(SUBJECTS.scrape.execute, command, admission);
        return { facts: reply.facts, result: await this.bus.unpack(reply.result) };
      };
      const scraped = await ask(miss?.revalidate ?? null);
      const { facts, result } = miss
        ? await this.pageCache.settle({ clientId: admission.client.id, correlationId: admission.requestId }, miss, scraped, () => ask(null))
        : scraped;
      // A 304 served from the cache is a success: the stored page is what the client gets.
      const success = result.cached === true || deliveredUsableContent(facts, result);
      return { facts, result, outcome: { success, executionMs: result.timings.total_ms } };
    });
  }

  async download(request: DownloadRequest, admission: AdmittedCall): Promise<DownloadResultBody> {
    await this.assertProxyApproved(request.use_proxy, admission);
    return this.charged.run(admission, 'sync-download', CREDIT_COST.simple_request, async () => {
      const reply = await this.callEngine(SUBJECTS.scrape.download, this.command(request, admission), admission);
      const result = await this.bus.unpack(reply.result);
      return {
        facts: reply.facts,
        result,
        outcome: { success: deliveredUsableContent(reply.facts, result), executionMs: (result.executionTime ?? 0) * 1000 },
      };
    });
  }

  /**
   * POST /v1/documents/convert: the file read on an engine, held at one credit and charged a
   * credit per page read (what its facts say); a file that cannot be read is refused there with a
   * typed 4xx and releases the hold.
   */
  async convertDocument(upload: UploadedDocumentRequest, admission: AdmittedCall): Promise<DocumentConversionResult> {
    return this.charged.run(admission, 'document-convert', CREDIT_COST.simple_request, async () => {
      const reply = await this.callEngine(SUBJECTS.scrape.convertDocument, this.command(upload, admission), admission);
      const result = await this.bus.unpack(reply.result);
      return { facts: reply.facts, result, outcome: { success: true, executionMs: result.execution_ms } };
    });
  }

  /**
   * One engine call, watched over NATS: a lost engine ends the call within seconds (WorkerLostError
   * → 503 with Retry-After; the caller releases the hold). A request no engine ever took — so
   * nothing was fetched — is sent once more, to whichever replica takes it.
   */
  private async callEngine<S extends EngineSubject>(
    subject: S,
    command: ReturnType<SyncScrapeHandler['command']> & { browser_slots?: number },
    admission: AdmittedCall,
  ) {
    if (this.bus.kind !== 'nats')
      return this.bus.request(subject, command, { correlationId: admission.requestId, timeoutMs: ENGINE_RPC_TIMEOUT_MS });
    for (let attempt = 1; ; attempt += 1) {
      const controller = new AbortController();
      let unacknowledged = false;
      const stopWatching = this.engines.watch(command.request_id, (error, acknowledged) => {
        unacknowledged = !acknowledged;
        controller.abort(error);
      });
      try {
        return await this.bus.request(subject, command, {
          correlationId: admission.requestId,
          timeoutMs: ENGINE_RPC_TIMEOUT_MS,
          signal: controller.signal,
        });
      } catch (error) {
        if (error instanceof WorkerLostError && unacknowledged && attempt === 1) continue;
        throw error;
      } finally {
        stopWatching();
      }
    }
  }

  private command(request: object, admission: AdmittedCall) {
    return { request_id: admission.requestId, client_id: admission.client.id, request: instanceToPlain(request), call_id: randomUUID() };
  }

  /** Spec 4.2 rule 4: a country pool needs the client's approval, asked on every request (a decision holds at once). */
  private async assertProxyApproved(useProxy: string | ProxyConfig | null, admission: AdmittedCall): Promise<void> {
    const country = proxyCountryOf(useProxy);
    if (!country) return;
    const { approved } = await this.bus.request(
      SUBJECTS.proxies.check,
      { client_id: admission.client.id, country_code: country },
      { correlationId: admission.requestId, timeoutMs: 5000 },
    );
    if (!approved) {
      throw new CountryProxyNotApprovedError(
        `The ${country} proxy pool is not approved for this client. Request it with POST /v1/proxy/request-country; an administrator reviews it (spec 3.5). Use "any" meanwhile.`,
      );
    }
  }
}
