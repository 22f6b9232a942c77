import { SimpleFetcher } from '@lib/http-fetch';
import { Injectable } from '@nestjs/common';
import { RobotsBook } from '../robots/robots-book';
import { SiteScope } from '../scope/site-scope';
import type { StoredCrawl } from '../persistence/crawl.store';
import { normalUrl } from '@lib/url-normal-form';

export interface CrawlRules {
  scope: SiteScope;
  robots: RobotsBook;
  maxDepth: number;
  /** sitemap=only: the pages are the start URL and the sitemaps' URLs; no link is followed. */
  followLinks: boolean;
}

/** Crawls whose rules are kept in memory at once (least recently used forgotten first; rebuilt on demand). */
const KEPT = 500;

/**
 * Each crawl's scope (with its trap state) and robots.txt book, built once per process from the
 * crawl's stored request. A worker that takes over a crawl builds them again (robots.txt read
 * afresh, which RFC 9309 §2.4 allows: caching is a crawler's choice of up to 24 hours).
 */
@Injectable()
export class CrawlRulebook {
  private readonly kept = new Map<string, CrawlRules>();

  constructor(private readonly fetcher: SimpleFetcher) {}

  rulesFor(crawl: Pick<StoredCrawl, 'id' | 'url' | 'request' | 'maxDepth'>): CrawlRules {
    let rules = this.kept.get(crawl.id);
    if (rules) {
      this.kept.delete(crawl.id);
      this.kept.set(crawl.id, rules);
      return rules;
    }
    const request = crawl.request;
    rules = {
      scope: new SiteScope({
        startHost: normalUrl(crawl.url)!.host,
        includeSubdomains: request.include_subdomains === true,
        domains: request.domains ?? [],
        includePaths: request.include_paths ?? [],
        excludePaths: request.exclude_paths ?? [],
      }),
      robots: new RobotsBook(
        (url, maxBodyBytes) => this.fetcher.fetch({ url, maxBodyBytes, maxRedirects: 5, totalTimeoutMs: 20_000 }),
        request.ignore_robots === true,
      ),
      maxDepth: crawl.maxDepth,
      followLinks: (request.sitemap ?? 'include') !== 'only',
    };
    this.kept.set(crawl.id, rules);
    if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value!);
    return rules;
  }

  forget(crawlId: string): void {
    this.kept.delete(crawlId);
  }
}
