import { CONTENT_RULES_VERSION, PAGE_CACHE_FIELDS, type PageValidators, type ScrapeExecutionFacts, type StoredPage } from '@lib/contracts';
import { PageCacheClient, type Scraped } from '@lib/page-cache';
import { Injectable } from '@nestjs/common';

/**
 * The page cache for a batch job whose request carried `max_age` (a collection's or batch's item, a
 * crawl's page options: decision 0037), in the steps the sync scrape takes (PageCacheClient): a
 * fresh entry is the job's result (0 credits, nothing fetched); a stale one with the origin's
 * validators is revalidated (1 credit on a 304, no browser); otherwise the page is fetched and a
 * usable result kept for the next request. When result-store cannot answer, the job fetches.
 */
@Injectable()
export class JobPageCache {
  constructor(private readonly cache: PageCacheClient) {}

  async through(
    job: { clientId: string; jobId: string },
    request: Record<string, unknown>,
    scrape: (plain: Record<string, unknown>, revalidate?: PageValidators) => Promise<Scraped>,
  ): Promise<Scraped> {
    const plain = { ...request };
    for (const field of PAGE_CACHE_FIELDS) delete plain[field];
    const maxAge = request.max_age;
    if (typeof maxAge !== 'number') return scrape(plain);
    const caller = { clientId: job.clientId, correlationId: `job:${job.jobId}` };
    const started = performance.now();
    const lookup = await this.cache.lookup(caller, plain, maxAge);
    if (lookup === null) return scrape(plain);
    if (lookup.state === 'fresh') return { facts: factsOfHit(plain, lookup.entry), result: this.cache.hit(lookup.entry, started) };
    const miss = this.cache.missOf(lookup, String(plain.url), request.revalidate === false ? false : undefined);
    const scraped = await scrape(plain, miss.revalidate ?? undefined);
    return this.cache.settle(caller, miss, scraped, () => scrape(plain));
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
