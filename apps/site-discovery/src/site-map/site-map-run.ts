import {
  MAP_LIMITS,
  type MapSiteRequest,
  type MapSiteResult,
  type LlmsTxtReport,
  type MapStopReason,
  type SitemapMode,
  type SitemapReport,
} from '@lib/contracts';
import { BodyTooLarge, FetchFailure, RedirectBlocked, type FetchedResponse, type SimpleFetcher } from '@lib/http-fetch';
import { TargetBlockedError } from '@lib/target-guard';
import { readLlmsTxt } from '../llms-txt/llms-txt-document';
import { readPageLinks } from '../page-links/page-links';
import { HostPoliteness } from '../politeness/host-politeness';
import { RobotsBook } from '../robots/robots-book';
import type { RobotsPolicy } from '../robots/robots-policy';
import { SiteScope } from '../scope/site-scope';
import { readSitemapDocument, SITEMAP_MAX_BYTES, UnreadableSitemap } from '../sitemaps/sitemap-document';
import { type NormalUrl, normalUrl, pageTwinOf } from '@lib/url-normal-form';
import type { FetchGate } from './fetch-gate';

/** Sitemap files one map reads at most, and how deep indexes may nest (protocol: one level). */
export const SITEMAP_FILE_LIMIT = 500;
export const SITEMAP_INDEX_LEVELS = 3;
/** Reports kept in the answer (all are counted). */
const SITEMAP_REPORTS_SHOWN = 100;
/** HTML pages read for links: larger bodies are not pages worth mapping. */
const PAGE_MAX_BYTES = 5 * 1024 * 1024;
/** An llms.txt is an index of links: a megabyte holds thousands. */
const LLMS_TXT_MAX_BYTES = 1024 * 1024;
/** One fetch's own ceiling, inside the map's deadline. */
const FETCH_TIMEOUT_MS = 20_000;
const MAX_REDIRECTS = 5;
/** Link pages fetched side by side within one map (each also waits its turn on the host and the process). */
const PAGE_WORKERS = 8;
const SITEMAP_WORKERS = 2;

type Source = 'sitemap' | 'links';

export interface SiteMapRunDependencies {
  fetcher: SimpleFetcher;
  /** Fetches of every map in this process share it (FIFO): one client's map cannot take them all. */
  gate: FetchGate;
  hostConcurrency: number;
  /**
   * The sitemaps' URLs are the first level beside the start page: read before links are followed,
   * and fetched for their links like it. A crawl starts from them (docs/crawl.md), so its dry run
   * maps this way; a map of its own lists them without fetching them.
   */
  sitemapUrlsFirstLevel?: boolean;
}

/**
 * One map: robots.txt of each origin met (cached), the sitemaps (index members followed), and the
 * pages reachable by links level by level up to max_depth, everything in the site's scope and
 * allowed by robots.txt, each URL once by its normal form. Bounded before it starts: URLs listed
 * (limit), pages fetched (page_fetches), time (timeout_ms), sitemap files (500, 3 index levels,
 * 50 MB and 50,000 URLs each), bytes per page (5 MB), redirects (5).
 */
export class SiteMapRun {
  private readonly started = Date.now();
  private readonly deadline: number;
  private readonly limit: number;
  private readonly pageBudget: number;
  private readonly maxDepth: number;
  private readonly sitemapMode: SitemapMode;
  private readonly ignoreRobots: boolean;
  private readonly scope: SiteScope;
  private readonly politeness: HostPoliteness;
  private readonly robots: RobotsBook;
  /** Listed URLs by key, in discovery order. */
  private readonly found = new Map<string, { url: string; source: Source }>();
  /** Keys that turned out not to be pages (redirected away, an error status, a canonical elsewhere). */
  private readonly gone = new Set<string>();
  /** Keys of pages fetched or queued for links. */
  private readonly visited = new Set<string>();
  /** Pages fetched for links (their keys): the rest of what is listed was never seen. */
  private readonly read = new Set<string>();
  private readonly sitemapUrls = new Set<string>();
  private readonly sitemapReports: SitemapReport[] = [];
  private sitemapsTotal = 0;
  private pagesFetched = 0;
  /** limit and timeout stop the whole map; page_fetches only stops following links (sitemaps go on). */
  private stoppedBy: MapStopReason | null = null;
  private pageBudgetSpent = false;
  private readonly skipped = { robots: 0, scope: 0, trap: 0, blocked: 0, failed: 0 };

  constructor(
    private readonly start: NormalUrl,
    request: MapSiteRequest,
    private readonly deps: SiteMapRunDependencies,
  ) {
    this.deadline = this.started + (request.timeout_ms ?? MAP_LIMITS.timeoutMs.default);
    this.limit = request.limit ?? MAP_LIMITS.urls.default;
    this.pageBudget = request.page_fetches ?? MAP_LIMITS.pageFetches.default;
    this.maxDepth = request.max_depth ?? MAP_LIMITS.depth.default;
    this.sitemapMode = request.sitemap ?? 'include';
    this.ignoreRobots = request.ignore_robots === true;
    this.scope = new SiteScope({
      startHost: start.host,
      includeSubdomains: request.include_subdomains === true,
      domains: request.domains ?? [],
      includePaths: request.include_paths ?? [],
      excludePaths: request.exclude_paths ?? [],
    });
    this.politeness = new HostPoliteness(deps.hostConcurrency);
    this.robots = new RobotsBook(
      (url, maxBytes) => this.fetch(url, maxBytes),
      this.ignoreRobots,
      (host, seconds) => this.politeness.setCrawlDelay(host, seconds),
    );
  }

  async run(): Promise<MapSiteResult> {
    const startRobots = await this.robotsFor(new URL(this.start.url));
    const llmsTxt = this.readLlmsTxt();
    if (this.deps.sitemapUrlsFirstLevel && this.sitemapMode === 'include') {
      await this.readSitemaps(startRobots);
      const listed = [...this.found.values()].map((entry) => normalUrl(entry.url)).filter((n): n is NormalUrl => n !== null);
      await this.followLinks(listed);
    } else {
      const work: Array<Promise<void>> = [];
      if (this.sitemapMode !== 'skip') work.push(this.readSitemaps(startRobots));
      if (this.sitemapMode !== 'only') work.push(this.followLinks([]));
      await Promise.all(work);
    }
    if (!this.stoppedBy && Date.now() >= this.deadline) this.stoppedBy = 'timeout';
    if (!this.stoppedBy && this.pageBudgetSpent) this.stoppedBy = 'page_fetches';
    const urls = [...this.found.values()].map((entry) => entry.url);
    const sources = { sitemap: 0, links: 0 };
    for (const entry of this.found.values()) sources[entry.source] += 1;
    return {
      url: this.start.url,
      urls,
      count: urls.length,
      truncated: this.stoppedBy !== null,
      stopped_by: this.stoppedBy,
      sources,
      robots: {
        status: startRobots.status,
        crawl_delay_seconds: startRobots.crawlDelaySeconds(),
        sitemaps: startRobots.sitemaps().slice(0, SITEMAP_REPORTS_SHOWN),
      },
      sitemaps: this.sitemapReports,
      sitemaps_total: this.sitemapsTotal,
      pages_fetched: this.pagesFetched,
      skipped: this.skipped,
      llms_txt: await llmsTxt,
      duration_ms: Date.now() - this.started,
    };
  }

  // ---- llms.txt -----------------------------------------------------------------------------

  /**
   * The site's /llms.txt, its links listed with whether each is in scope; none is fetched. Every map
   * reads it; a crawl that reads no sitemap asks for it alone.
   */
  async readLlmsTxt(): Promise<LlmsTxtReport> {
    const url = new URL('/llms.txt', this.start.url).href;
    const report = (status: LlmsTxtReport['status']): LlmsTxtReport => ({
      url,
      status,
      title: null,
      summary: null,
      sections: [],
      entries_total: 0,
    });
    let response: FetchedResponse | null;
    try {
      response = await this.fetch(url, LLMS_TXT_MAX_BYTES);
    } catch (error) {
      if (
        error instanceof TargetBlockedError ||
        error instanceof RedirectBlocked ||
        error instanceof BodyTooLarge ||
        error instanceof FetchFailure
      )
        return report('unavailable');
      throw error;
    }
    if (!response || response.statusCode >= 500 || response.statusCode < 200) return report('unavailable');
    if (response.statusCode >= 300) return report('none');
    const document = /html/i.test(response.contentType ?? '') ? null : readLlmsTxt(response.text ?? '', response.url);
    if (!document) return report('not_llms_txt');
    return {
      ...report('found'),
      title: document.title,
      summary: document.summary,
      sections: document.sections.map((section) => ({
        name: section.name,
        optional: section.optional,
        entries: section.links.map((link) => {
          const normal = normalUrl(link.url);
          return { ...link, in_scope: normal !== null && this.scope.verdict(normal) === 'in' };
        }),
      })),
      entries_total: document.total,
    };
  }

  private get stopped(): boolean {
    if (this.stoppedBy) return true;
    if (Date.now() >= this.deadline) {
      this.stoppedBy = 'timeout';
      return true;
    }
    return false;
  }

  /** Lists a URL when it is new, in scope and allowed; true when it was listed now. */
  private async list(normal: NormalUrl, source: Source): Promise<boolean> {
    if (this.found.has(normal.key) || this.gone.has(normal.key)) return false;
    const verdict = this.scope.verdict(normal);
    if (verdict !== 'in') {
      this.skipped[verdict] += 1;
      return false;
    }
    const policy = await this.robotsFor(new URL(normal.url));
    if (!policy.allows(normal.url)) {
      this.skipped.robots += 1;
      return false;
    }
    if (this.found.has(normal.key) || this.gone.has(normal.key)) return false;
    if (this.found.size >= this.limit) {
      this.stoppedBy ??= 'limit';
      return false;
    }
    this.found.set(normal.key, { url: normal.url, source });
    return true;
  }

  private drop(key: string): void {
    this.found.delete(key);
    this.gone.add(key);
  }

  // ---- robots.txt ---------------------------------------------------------------------------

  private robotsFor(url: URL): Promise<RobotsPolicy> {
    return this.robots.policyFor(url);
  }

  // ---- sitemaps -----------------------------------------------------------------------------

  private async readSitemaps(startRobots: RobotsPolicy): Promise<void> {
    const origin = new URL(this.start.url).origin;
    const named = startRobots.sitemaps();
    const first = named.length > 0 ? named : [`${origin}/sitemap.xml`];
    const queue: Array<{ url: string; level: number }> = [];
    for (const url of first) this.enqueueSitemap(queue, url, 1);
    await workers(SITEMAP_WORKERS, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (this.stopped) return;
        await this.readSitemap(next.url, next.level, queue);
      }
    });
  }

  private enqueueSitemap(queue: Array<{ url: string; level: number }>, raw: string, level: number): void {
    const normal = normalUrl(raw);
    if (!normal || this.sitemapUrls.has(normal.key)) return;
    this.sitemapUrls.add(normal.key);
    this.sitemapsTotal += 1;
    if (!this.scope.hostInScope(normal.host)) return this.report(normal.url, 'out_of_scope', 0, 'not a host of the site');
    if (this.sitemapsTotal > SITEMAP_FILE_LIMIT)
      return this.report(normal.url, 'over_limit', 0, `past ${SITEMAP_FILE_LIMIT} sitemap files`);
    if (level > SITEMAP_INDEX_LEVELS)
      return this.report(normal.url, 'over_limit', 0, `nested deeper than ${SITEMAP_INDEX_LEVELS} index levels`);
    queue.push({ url: normal.url, level });
  }

  private report(url: string, outcome: SitemapReport['outcome'], urls: number, detail: string | null): void {
    if (this.sitemapReports.length < SITEMAP_REPORTS_SHOWN) this.sitemapReports.push({ url, outcome, urls, detail });
  }

  private async readSitemap(url: string, level: number, queue: Array<{ url: string; level: number }>): Promise<void> {
    let response: FetchedResponse | null;
    try {
      response = await this.fetch(url, SITEMAP_MAX_BYTES);
    } catch (error) {
      return this.report(url, ...failureOutcome(error));
    }
    if (!response) return this.report(url, 'failed', 0, 'the map ran out of time');
    if (response.statusCode >= 400)
      return this.report(url, response.statusCode < 500 ? 'not_found' : 'failed', 0, `HTTP ${response.statusCode}`);
    let document;
    try {
      document = await readSitemapDocument(response.body);
    } catch (error) {
      if (error instanceof UnreadableSitemap) return this.report(url, error.outcome, 0, error.message);
      throw error;
    }
    const detail = document.overLimit ? 'listed more than 50,000 URLs; the rest were not read' : null;
    this.report(url, 'read', document.locs.length, detail);
    if (document.kind === 'index') {
      for (const loc of document.locs) this.enqueueSitemap(queue, loc, level + 1);
      return;
    }
    for (const loc of document.locs) {
      if (this.stoppedBy === 'limit') return;
      const normal = normalUrl(loc);
      if (normal) await this.list(normal, 'sitemap');
    }
  }

  // ---- links --------------------------------------------------------------------------------

  /** Pages level by level from the start page and `firstLevel` (depth 0); max_depth -1 lists them and fetches none. */
  private async followLinks(firstLevel: NormalUrl[]): Promise<void> {
    await this.list(this.start, 'links');
    let level: NormalUrl[] = [];
    for (const page of [this.start, ...firstLevel])
      if (!this.visited.has(page.key)) {
        this.visited.add(page.key);
        level.push(page);
      }
    for (let depth = 0; depth <= this.maxDepth && level.length > 0; depth += 1) {
      const next: NormalUrl[] = [];
      const pending = [...level];
      await workers(PAGE_WORKERS, async () => {
        for (let page = pending.shift(); page; page = pending.shift()) {
          if (this.stopped) return;
          if (this.pagesFetched >= this.pageBudget) {
            this.pageBudgetSpent = true;
            return;
          }
          const links = await this.readPage(page);
          for (const link of links) {
            if (this.stoppedBy === 'limit') return;
            const added = await this.list(link, 'links');
            if ((added || this.found.has(link.key)) && depth < this.maxDepth && !this.visited.has(link.key)) {
              this.visited.add(link.key);
              next.push(link);
            }
          }
        }
      });
      level = next;
    }
  }

  /**
   * Fetches one page and returns its links in normal form (nothing when it is not an HTML page).
   * Redirects are followed here, hop by hop, each hop in scope and allowed by robots.txt like any
   * link (so a redirect cannot lead the map where a link could not), each URL once (loops end).
   */
  private async readPage(page: NormalUrl): Promise<NormalUrl[]> {
    this.pagesFetched += 1;
    this.read.add(page.key);
    const source = this.found.get(page.key)?.source ?? 'links';
    let current = page;
    let response: FetchedResponse | null = null;
    for (let hop = 0; ; hop += 1) {
      try {
        response = await this.fetch(current.url, PAGE_MAX_BYTES, false);
      } catch (error) {
        if (error instanceof TargetBlockedError || error instanceof RedirectBlocked) this.skipped.blocked += 1;
        else this.skipped.failed += 1;
        this.drop(current.key);
        return [];
      }
      if (!response) return [];
      const location = response.headers.location;
      if (response.statusCode < 300 || response.statusCode >= 400 || typeof location !== 'string' || !location) break;
      this.drop(current.key);
      const next = normalUrl(location, current.url);
      if (!next || hop >= MAX_REDIRECTS || this.visited.has(next.key)) return [];
      const listed = await this.list(next, source);
      if (!listed && !this.found.has(next.key)) return [];
      this.visited.add(next.key);
      current = next;
    }
    if (response.statusCode >= 400) {
      this.skipped.failed += 1;
      this.drop(current.key);
      return [];
    }
    const type = (response.contentType ?? '').toLowerCase();
    if (!response.text || !(type.includes('html') || type === '')) return [];
    const { links, canonical } = readPageLinks(response.text, current.url);
    if (canonical) {
      const named = normalUrl(canonical);
      if (named && named.key !== current.key && this.scope.hostInScope(named.host)) {
        this.drop(current.key);
        await this.list(named, source);
      }
    }
    const normals: NormalUrl[] = [];
    for (const link of links) {
      const normal = normalUrl(link);
      if (normal) normals.push(normal);
    }
    return normals;
  }

  /**
   * After run(): how many listed URLs were never fetched, and of a spread sample of them (at most
   * `sample`, fetched within `timeMs` without following redirects), how many are another page by the
   * rule a crawl's pages are judged by (pageTwinOf). A crawl plan takes that share off what it lists
   * but never saw, since a crawl fetches those twins and does not charge them (decision 0035).
   * Fetches here do not count against page_fetches.
   */
  async twinsAmongUnread(sample: number, timeMs: number): Promise<{ unread: number; sampled: number; twins: number }> {
    const unread = [...this.found.entries()].filter(([key]) => !this.read.has(key)).map(([, entry]) => entry.url);
    const picked =
      unread.length <= sample ? unread : Array.from({ length: sample }, (_, i) => unread[Math.floor((i * unread.length) / sample)]);
    const deadline = Date.now() + timeMs;
    let sampled = 0;
    let twins = 0;
    const pending = [...picked];
    await workers(PAGE_WORKERS, async () => {
      for (let url = pending.shift(); url; url = pending.shift()) {
        const response = await this.fetch(url, PAGE_MAX_BYTES, false, deadline).catch(() => null);
        if (!response) continue;
        sampled += 1;
        const location = response.headers.location;
        const type = (response.contentType ?? '').toLowerCase();
        const html = response.statusCode < 300 && (type.includes('html') || type === '') ? response.text : null;
        const twin = pageTwinOf({
          url,
          statusCode: response.statusCode,
          location: typeof location === 'string' ? location : null,
          answeredUrl: response.url,
          canonicalLink: html ? readPageLinks(html, response.url).canonical : null,
        });
        if (twin) twins += 1;
      }
    });
    return { unread: unread.length, sampled, twins };
  }

  // ---- fetching -----------------------------------------------------------------------------

  /** One GET in its turns (process gate, then host politeness); null when the map's time ran out first. */
  private async fetch(
    url: string,
    maxBodyBytes: number,
    followRedirects = true,
    deadline = this.deadline,
  ): Promise<FetchedResponse | null> {
    const host = new URL(url).host;
    return this.deps.gate.inTurn(deadline, () =>
      this.politeness.inTurn(host, deadline, () => {
        const remaining = deadline - Date.now();
        if (remaining <= 0) return Promise.resolve(null);
        return this.deps.fetcher.fetch({
          url,
          maxBodyBytes,
          maxRedirects: MAX_REDIRECTS,
          followRedirects,
          totalTimeoutMs: Math.min(FETCH_TIMEOUT_MS, remaining),
          connectTimeoutMs: Math.min(5_000, remaining),
        });
      }),
    );
  }
}

function failureOutcome(error: unknown): [SitemapReport['outcome'], number, string] {
  if (error instanceof TargetBlockedError) return ['blocked', 0, error.message];
  if (error instanceof RedirectBlocked) return ['blocked', 0, error.message];
  if (error instanceof BodyTooLarge) return ['too_large', 0, `larger than ${SITEMAP_MAX_BYTES / 1024 / 1024} MB`];
  if (error instanceof FetchFailure) return ['failed', 0, error.message];
  throw error;
}

/** Runs `count` copies of `work` side by side (each takes items from a shared queue until it is empty). */
async function workers(count: number, work: () => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => work()));
}
