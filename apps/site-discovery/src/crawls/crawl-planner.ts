import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import {
  CRAWL_LIMITS,
  type CrawlForecast,
  type CrawlPlan,
  type CrawlPlanSection,
  type LlmsTxtReport,
  MAP_LIMITS,
  SUBJECTS,
  type ViabilityResult,
} from '@lib/contracts';
import { SimpleFetcher } from '@lib/http-fetch';
import { MessageBus } from '@lib/messaging';
import { CREDIT_COST } from '@lib/plans';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { StoredCrawl } from '../persistence/crawl.store';
import { FetchGate } from '../site-map/fetch-gate';
import { SiteMapRun } from '../site-map/site-map-run';
import { normalUrl } from '@lib/url-normal-form';
import type { CrawlRules } from './crawl-rulebook';

const {
  sectionsShown: PLAN_SECTIONS_SHOWN,
  sectionsSampled: PLAN_SECTIONS_SAMPLED,
  samplesPerSection: PLAN_SAMPLES_PER_SECTION,
} = CRAWL_LIMITS.plan;
const PLAN_MAP_TIMEOUT_MS = 20_000;
/** URLs listed but never fetched that a plan fetches to estimate its twins, and the time it gives them. */
const PLAN_TWIN_SAMPLE = 50;
const PLAN_TWIN_SAMPLE_MS = 10_000;
/**
 * What the job path adds to each page beyond its fetch (dispatch, claim, completion, result and
 * ledger writes), per page in flight, calibrated by `npm run bench`'s crawl row (docs/benchmarks.md):
 * a forecast without it is far short on fast pages.
 */
const JOB_PATH_MS_PER_PAGE = 100;
const ANALYSIS_TIMEOUT_MS = 120_000;

/**
 * A dry run (issue 39): the crawl's URLs found the way POST /v1/map finds them (same scope, depth
 * and robots), grouped by first path segment; a few URLs of the largest sections analysed by the
 * viability analysis at quick depth (charged like it, under keys made of the crawl id, so a plan
 * made again after a crash is not charged again); and per mode the pages the crawl would scrape
 * within max_pages and max_credits, their credits and, where the samples measured it, the time.
 */
@Injectable()
export class CrawlPlanner {
  private readonly logger = new Logger('CrawlPlanner');

  constructor(
    private readonly fetcher: SimpleFetcher,
    private readonly gate: FetchGate,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** The plan, and the site's llms.txt as the plan's map read it (listed on the crawl as a crawl lists it). */
  async plan(crawl: StoredCrawl, rules: CrawlRules): Promise<{ plan: CrawlPlan; llmsTxt: LlmsTxtReport }> {
    const request = crawl.request;
    const start = normalUrl(crawl.url)!;
    const run = new SiteMapRun(
      start,
      {
        url: crawl.url,
        include_subdomains: request.include_subdomains,
        domains: request.domains,
        include_paths: request.include_paths,
        exclude_paths: request.exclude_paths,
        sitemap: request.sitemap,
        ignore_robots: request.ignore_robots,
        // A map's max_depth counts the levels fetched for links and lists the links of the last one;
        // a crawl's counts the levels scraped. One less here finds what the crawl will scrape (-1:
        // the first pages only, none fetched for links).
        max_depth: Math.min(crawl.maxDepth - 1, MAP_LIMITS.depth.max),
        limit: MAP_LIMITS.urls.max,
        page_fetches: MAP_LIMITS.pageFetches.default,
        timeout_ms: PLAN_MAP_TIMEOUT_MS,
      },
      { fetcher: this.fetcher, gate: this.gate, hostConcurrency: this.config.discoveryHostConcurrency, sitemapUrlsFirstLevel: true },
    );
    const map = await run.run();
    // What the map lists but never fetched may be a twin (a print copy, an old address): the crawl
    // fetches it, finds the page it is, and charges nothing. The share a sample of them shows is
    // taken off the forecast's pages.
    const unread = await run.twinsAmongUnread(PLAN_TWIN_SAMPLE, PLAN_TWIN_SAMPLE_MS);
    const duplicates = unread.sampled === 0 ? 0 : Math.round((unread.unread * unread.twins) / unread.sampled);
    const sections = sectionsOf(map.urls);
    const sampled = sections.slice(0, PLAN_SECTIONS_SAMPLED).map((s) => spread(s.urls, PLAN_SAMPLES_PER_SECTION));
    let credits = 0;
    const verdicts = new Map<string, ViabilityResult>();
    let n = 0;
    for (const urls of sampled)
      for (const url of urls) {
        n += 1;
        try {
          const reply = await this.bus.request(
            SUBJECTS.viability.analyse,
            {
              client_id: crawl.clientId,
              monthly_credits: request.plan.monthly_credits,
              request_id: `crawl-plan:${crawl.id}:${n}`,
              url,
              depth: 'quick',
            },
            { timeoutMs: ANALYSIS_TIMEOUT_MS },
          );
          credits += reply.credits_charged;
          verdicts.set(url, reply.verdict);
        } catch (error) {
          this.logger.warn(`crawl ${crawl.id}: sample ${url} not analysed (${error instanceof Error ? error.message : String(error)})`);
        }
      }
    const shown: CrawlPlanSection[] = sections.slice(0, PLAN_SECTIONS_SHOWN).map((section, i) => {
      const urls = sampled[i] ?? [];
      const strategies: Record<string, number> = {};
      for (const url of urls) {
        const verdict = verdicts.get(url);
        if (verdict) strategies[verdict.recommended_strategy] = (strategies[verdict.recommended_strategy] ?? 0) + 1;
      }
      return { path: section.path, urls: section.urls.length, sampled: urls.filter((u) => verdicts.has(u)), strategies };
    });
    const rest = sections.slice(PLAN_SECTIONS_SHOWN);
    if (rest.length > 0) shown.push({ path: 'other', urls: rest.reduce((sum, s) => sum + s.urls.length, 0), sampled: [], strategies: {} });
    const all = [...verdicts.values()];
    const blocked = all.filter((v) => v.recommended_strategy === 'blocked').length;
    const usable = all.filter((v) => v.recommended_strategy !== 'blocked');
    const browser = usable.filter((v) => v.recommended_strategy === 'browser').length;
    const delay = (await rules.robots.policyFor(new URL(crawl.url))).crawlDelaySeconds();
    const simpleMs = median(usable.map((v) => v.tests.simple_request?.time_ms).filter((t): t is number => typeof t === 'number'));
    const browserMs = median(usable.map((v) => v.tests.browser?.time_ms).filter((t): t is number => typeof t === 'number'));
    const plan: CrawlPlan = {
      discovered: map.count,
      duplicates_expected: duplicates,
      truncated: map.truncated,
      sections: shown,
      block_rate: all.length > 0 ? round(blocked / all.length) : null,
      recommended_mode: usable.length === 0 ? null : browser * 2 > usable.length ? 'browser' : 'simple',
      forecast: [
        forecastOf('simple', map.count - duplicates, crawl, simpleMs, delay, this.config.discoveryHostConcurrency),
        forecastOf('browser', map.count - duplicates, crawl, browserMs, delay, this.config.discoveryHostConcurrency),
      ],
      credits_charged: credits,
    };
    return { plan, llmsTxt: map.llms_txt };
  }
}

/** URLs grouped by their first path segment, largest first (ties by name). */
function sectionsOf(urls: string[]): Array<{ path: string; urls: string[] }> {
  const groups = new Map<string, string[]>();
  for (const url of urls) {
    const first = new URL(url).pathname.split('/').filter(Boolean)[0];
    const path = first && new URL(url).pathname.length > first.length + 1 ? `/${first}` : '/';
    groups.set(path, [...(groups.get(path) ?? []), url]);
  }
  return [...groups.entries()]
    .map(([path, list]) => ({ path, urls: list }))
    .sort((a, b) => b.urls.length - a.urls.length || a.path.localeCompare(b.path));
}

/** `n` URLs spread over the list (first, middle, last …), not its first few, which are often alike. */
function spread(urls: string[], n: number): string[] {
  if (urls.length <= n) return urls;
  return Array.from({ length: n }, (_, i) => urls[Math.floor((i * (urls.length - 1)) / (n - 1))]);
}

function forecastOf(
  mode: 'simple' | 'browser',
  discovered: number,
  crawl: StoredCrawl,
  pageMs: number | null,
  crawlDelaySeconds: number | null,
  inFlight: number,
): CrawlForecast {
  const price = mode === 'browser' ? CREDIT_COST.browser_request : CREDIT_COST.simple_request;
  const byCredits = crawl.maxCredits ? Math.floor(crawl.maxCredits / price) : Number.POSITIVE_INFINITY;
  const pages = Math.min(discovered, crawl.request.max_pages ?? crawl.maxPages, byCredits);
  const perPageMs = pageMs === null ? null : pageMs + JOB_PATH_MS_PER_PAGE;
  const seconds =
    perPageMs === null
      ? null
      : crawlDelaySeconds
        ? pages * Math.max(crawlDelaySeconds, perPageMs / 1000)
        : (pages * perPageMs) / 1000 / inFlight;
  return { mode, pages, credits: pages * price, seconds: seconds === null ? null : Math.round(seconds * 10) / 10 };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
