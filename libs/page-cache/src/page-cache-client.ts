import {
  deliveredUsableContent,
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

/** A scrape's outcome as the engine answers it. */
export interface Scraped {
  facts: ScrapeExecutionFacts;
  result: ScrapeResultBody;
}

/** Whose cache is asked, and under which id its calls are logged. */
export interface PageCacheCaller {
  clientId: string;
  correlationId: string;
}

/** What a fetch under the cache carries from the lookup: the entry's key, and the validators it revalidates with (null: a plain fetch). */
export interface PageCacheMiss {
  key: string;
  url: string;
  revalidate: PageValidators | null;
}

/**
 * The page cache as its users reach it (decision 0037: result-store owns the cache and its key) —
 * the sync scrape in the gateway and a batch job in scrape-engine take the same steps: ask; serve a
 * fresh entry (0 credits, nothing fetched); fetch, revalidating a stale entry with the origin's
 * validators when the request allows it; serve a 304 from the entry confirmed as of now (or fetch
 * after all when it went in between); keep a usable result for the next request, never a failure or
 * a block. A cache is an optimisation: when result-store cannot answer, the page is fetched, and a
 * result that could not be kept is only a later miss.
 */
@Injectable()
export class PageCacheClient {
  private readonly logger = new Logger('PageCache');

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The cache's answer for a request with max_age; null when result-store could not answer (the request is fetched). */
  async lookup(caller: PageCacheCaller, request: Record<string, unknown>, maxAge: number): Promise<PageCacheLookupReply | null> {
    try {
      return await this.bus.request(
        SUBJECTS.pageCache.lookup,
        { client_id: caller.clientId, request, max_age: maxAge },
        { correlationId: caller.correlationId, timeoutMs: 5000 },
      );
    } catch (error) {
      this.logger.warn(`page cache lookup failed, fetching instead: ${String(error)}`);
      return null;
    }
  }

  /** A fresh entry as the answer: nothing fetched, 0 credits, timed from `startedMs` (performance.now()). */
  hit(entry: StoredPage, startedMs: number): ScrapeResultBody {
    platformMetrics.pageCache.inc({ status: 'hit' });
    const ms = performance.now() - startedMs;
    return servedFromCache(entry, 'hit', this.clock.now(), 0, { total_ms: Math.round(ms * 10) / 10 }, ms / 1000);
  }

  /** What a fetch after a lookup that was not fresh carries: the validators of a stale entry, unless the request said revalidate=false. */
  missOf(lookup: Exclude<PageCacheLookupReply, { state: 'fresh' }>, url: string, revalidate: boolean | undefined): PageCacheMiss {
    return {
      key: lookup.key,
      url,
      revalidate: revalidate !== false && lookup.state === 'stale' ? (lookup.validators ?? null) : null,
    };
  }

  /**
   * A fetch's outcome under the cache: a 304 to a revalidation serves the stored entry, confirmed as
   * of now (fetched again by `refetch` when the entry went in between); any other answer is the
   * result, kept when usable, with its `cache` report.
   */
  async settle(caller: PageCacheCaller, miss: PageCacheMiss, scraped: Scraped, refetch: () => Promise<Scraped>): Promise<Scraped> {
    let { facts, result } = scraped;
    if (miss.revalidate && facts.not_modified) {
      const now = this.clock.now();
      const entry = await this.confirm(caller, miss.key, now);
      if (entry) {
        platformMetrics.pageCache.inc({ status: 'revalidated' });
        return { facts, result: servedFromCache(entry, 'revalidated', now, facts.credits, result.timings, result.executionTime ?? 0) };
      }
      ({ facts, result } = await refetch());
    } else {
      platformMetrics.pageCache.inc({ status: miss.revalidate ? 'stale_refetched' : 'miss' });
    }
    const usable = deliveredUsableContent(facts, result);
    const now = this.clock.now();
    if (usable) this.keep(caller, miss, result, facts.validators ?? null, now);
    return {
      facts,
      result: { ...result, cached: false, cache: { status: 'miss', age: 0, fetched_at: now.toISOString(), stored: usable } },
    };
  }

  /** The origin answered 304: the entry is confirmed as of `at`; null when it went in the meantime (or result-store did not answer). */
  private async confirm(caller: PageCacheCaller, key: string, at: Date): Promise<StoredPage | null> {
    try {
      const { entry } = await this.bus.request(
        SUBJECTS.pageCache.confirm,
        { client_id: caller.clientId, key, validated_at: at.toISOString() },
        { correlationId: caller.correlationId, timeoutMs: 5000 },
      );
      return entry;
    } catch (error) {
      this.logger.warn(`page cache confirm failed: ${String(error)}`);
      return null;
    }
  }

  /** Kept for the next request; the answer goes out before this is done, so it never delays it. */
  private keep(caller: PageCacheCaller, miss: PageCacheMiss, result: ScrapeResultBody, validators: PageValidators | null, at: Date): void {
    void this.bus
      .request(
        SUBJECTS.pageCache.store,
        { client_id: caller.clientId, key: miss.key, url: miss.url, result, validators, fetched_at: at.toISOString() },
        { correlationId: caller.correlationId, timeoutMs: 10_000 },
      )
      .catch((error: unknown) => this.logger.warn(`page cache store failed: ${String(error)}`));
  }
}
