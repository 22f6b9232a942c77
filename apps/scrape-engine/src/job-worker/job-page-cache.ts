import {
  CONTENT_RULES_VERSION,
  deliveredUsableContent,
  PAGE_CACHE_FIELDS,
  type PageCacheLookupReply,
  type PageValidators,
  type ScrapeExecutionFacts,
  type ScrapeResultBody,
  servedFromCache,
  type StoredPage,
  SUBJECTS,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { platformMetrics } from '@lib/metrics';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable, Logger } from '@nestjs/common';

type Scraped = { facts: ScrapeExecutionFacts; result: ScrapeResultBody };

/**
 * The page cache for a batch job whose request carried `max_age` (a collection's or batch's item, a
 * crawl's page options: decision 0037), as the sync scrape uses it: a fresh entry is the job's
 * result (0 credits, nothing fetched); a stale one with the origin's validators is revalidated (1
 * credit on a 304, no browser); otherwise the page is fetched and a usable result kept for the next
 * request. result-store owns the cache and its key; when it cannot answer, the job fetches.
 */
@Injectable()
export class JobPageCache {
  private readonly logger = new Logger('JobPageCache');

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async through(
    job: { clientId: string; jobId: string },
    request: Record<string, unknown>,
    scrape: (plain: Record<string, unknown>, revalidate?: PageValidators) => Promise<Scraped>,
  ): Promise<Scraped> {
    const plain = { ...request };
    for (const field of PAGE_CACHE_FIELDS) delete plain[field];
    const maxAge = request.max_age;
    if (typeof maxAge !== 'number') return scrape(plain);
    const correlationId = `job:${job.jobId}`;
    const started = performance.now();
    const lookup = await this.ask<PageCacheLookupReply>(
      () =>
        this.bus.request(
          SUBJECTS.pageCache.lookup,
          { client_id: job.clientId, request: plain, max_age: maxAge },
          { correlationId, timeoutMs: 5000 },
        ),
      'lookup',
    );
    if (lookup === null) return scrape(plain);
    if (lookup.state === 'fresh') {
      platformMetrics.pageCache.inc({ status: 'hit' });
      const ms = performance.now() - started;
      const result = servedFromCache(lookup.entry, 'hit', this.clock.now(), 0, { total_ms: Math.round(ms * 10) / 10 }, ms / 1000);
      return { facts: factsOfHit(plain, lookup.entry), result };
    }
    const validators = request.revalidate !== false && lookup.state === 'stale' ? (lookup.validators ?? undefined) : undefined;
    let { facts, result } = await scrape(plain, validators);
    if (validators && facts.not_modified) {
      const now = this.clock.now();
      const confirmed = await this.ask<{ entry: StoredPage | null }>(
        () =>
          this.bus.request(
            SUBJECTS.pageCache.confirm,
            { client_id: job.clientId, key: lookup.key, validated_at: now.toISOString() },
            { correlationId, timeoutMs: 5000 },
          ),
        'confirm',
      );
      if (confirmed?.entry) {
        platformMetrics.pageCache.inc({ status: 'revalidated' });
        return {
          facts,
          result: servedFromCache(confirmed.entry, 'revalidated', now, facts.credits, result.timings, result.executionTime ?? 0),
        };
      }
      // Pruned between the lookup and the 304 (or result-store went): the page is fetched after all.
      ({ facts, result } = await scrape(plain));
    } else {
      platformMetrics.pageCache.inc({ status: validators ? 'stale_refetched' : 'miss' });
    }
    const usable = deliveredUsableContent(facts, result);
    const now = this.clock.now();
    if (usable)
      void this.ask(
        () =>
          this.bus.request(
            SUBJECTS.pageCache.store,
            {
              client_id: job.clientId,
              key: lookup.key,
              url: String(plain.url),
              result,
              validators: facts.validators ?? null,
              fetched_at: now.toISOString(),
            },
            { correlationId, timeoutMs: 10_000 },
          ),
        'store',
      );
    return {
      facts,
      result: { ...result, cached: false, cache: { status: 'miss', age: 0, fetched_at: now.toISOString(), stored: usable } },
    };
  }

  /** A cache call; a cache is an optimisation, so a failed one is said and the job goes on without it. */
  private async ask<T>(call: () => Promise<T>, what: string): Promise<T | null> {
    try {
      return await call();
    } catch (error) {
      this.logger.warn(`page cache ${what} failed; the job goes on without it: ${String(error)}`);
      return null;
    }
  }
}

/** A job served from the cache: the page answered (as stored), nothing fetched, nothing charged. */
function factsOfHit(plain: Record<string, unknown>, entry: StoredPage): ScrapeExecutionFacts {
  return {
    billable: true,
    credits: 0,
    mode: plain.browser === true ? 'browser' : 'simple',
    target_domain: hostOf(String(plain.url)),
    status_code: entry.result.statusCode,
    block_reason: null,
    protection_stack: [],
    rule_hits: [],
    rules_version: CONTENT_RULES_VERSION,
    proxy: null,
    attempts: 0,
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
