import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import { CRAWL_LIMITS, CrawlView, CreateCrawlCommand, type LlmsTxtReport, SUBJECTS, type ZeroPageReason } from '@lib/contracts';
import { SimpleFetcher } from '@lib/http-fetch';
import { MessageBus } from '@lib/messaging';
import { CREDIT_COST } from '@lib/plans';
import { CLOCK, Clock } from '@lib/runtime';
import { TargetGuard } from '@lib/target-guard';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CrawlStore, type PageCandidate, type SkipCounts } from '../persistence/crawl.store';
import { InvalidCrawlError } from '../site-discovery.errors';
import { vettedStart } from '../scope/start-url';
import { FetchGate } from '../site-map/fetch-gate';
import { SiteMapRun } from '../site-map/site-map-run';
import { normalUrl } from '@lib/url-normal-form';
import { candidateOf, sortLinks } from './crawl-frontier';
import { CrawlRulebook } from './crawl-rulebook';
import { viewOf } from './crawl-views';
import { CrawlWorker, openRunCommand } from './crawl-worker';

/** How long reading the sitemaps for a crawl's first pages may take (the crawl answers 202 after it). */
const SEED_TIMEOUT_MS = 15_000;

/**
 * POST /v1/crawl: the start URL vetted, robots.txt read, the first pages admitted (the start page
 * and, unless sitemap=skip, the sitemaps' URLs within max_pages), the crawl stored and its run
 * opened on the job engine; the worker then appends pages and follows links. A start page
 * robots.txt disallows makes a crawl that ends at once with zero_pages_reason "robots". A dry run is
 * stored `planning` with no page and no run; a worker makes its plan (CrawlPlanner).
 */
@Injectable()
export class CrawlLauncher {
  constructor(
    private readonly store: CrawlStore,
    private readonly rulebook: CrawlRulebook,
    private readonly worker: CrawlWorker,
    private readonly fetcher: SimpleFetcher,
    private readonly gate: FetchGate,
    private readonly guard: TargetGuard,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async create(command: CreateCrawlCommand): Promise<CrawlView> {
    // A monitor's tick names its crawl: asked again (a retried start), the crawl it already is.
    const known = command.crawl_id ? await this.store.find(command.client_id, command.crawl_id) : null;
    if (known) return viewOf(known, null);
    const request = command.request;
    if (request.page_webhooks && !request.callback_url)
      throw new InvalidCrawlError('page_webhooks needs a callback_url: the crawl.page webhooks are POSTed there.', {
        field: 'page_webhooks',
      });
    const start = await vettedStart(request, command.robots_override_allowed, this.guard);
    const scrape: Record<string, unknown> = { ...(request.scrape ?? {}), include_metadata: true };
    delete scrape.url;
    const pageCredits = scrape.browser === true ? CREDIT_COST.browser_request : CREDIT_COST.simple_request;
    const byCredits = request.max_credits ? Math.floor(request.max_credits / pageCredits) : Number.POSITIVE_INFINITY;
    if (byCredits < 1)
      throw new InvalidCrawlError(`max_credits ${request.max_credits} cannot pay for one page (${pageCredits} credits each).`, {
        page_credits: pageCredits,
      });
    const maxPages = Math.min(request.max_pages ?? CRAWL_LIMITS.pages.default, byCredits);
    const id = command.crawl_id ?? randomUUID();
    const plan = { max_concurrency: command.max_concurrency, monthly_credits: command.monthly_credits };
    const stored = { id, url: start.url, request: { ...request, scrape, plan }, maxDepth: request.max_depth ?? CRAWL_LIMITS.depth.default };
    const rules = this.rulebook.rulesFor(stored);
    const policy = await rules.robots.policyFor(new URL(start.url));
    if (request.dry_run) {
      // A plan: stored planning, made by a worker (the map and the analyses take a while; a worker that dies mid-plan is taken over).
      await this.store.insert(
        {
          ...stored,
          clientId: command.client_id,
          state: 'planning',
          robotsStatus: policy.status,
          maxPages,
          pageCredits,
          maxCredits: request.max_credits ?? null,
          skipped: {},
          zeroPagesReason: null,
          // The plan's map reads it.
          llmsTxt: null,
          createdAt: this.clock.now(),
        },
        [],
      );
      this.worker.wake();
      return viewOf((await this.store.byId(id))!, null);
    }
    let zero: ZeroPageReason | null = null;
    const seeds: PageCandidate[] = [];
    const refused: Partial<SkipCounts> = {};
    let llmsTxt: LlmsTxtReport | null = null;
    if (!policy.allows(start.url)) zero = 'robots';
    else {
      // Following links, the start page is the way in and always scraped; with sitemap=only it is a page like the sitemaps' and must be in scope.
      if (rules.followLinks || rules.scope.verdict(start) === 'in') seeds.push(candidateOf(id, start, 0));
      else refused.scope = 1;
      if (request.start_urls?.length) {
        const more = await sortLinks(id, request.start_urls, 0, rules);
        seeds.push(...more.candidates);
        addCounts(refused, more.refused);
      }
      // The sitemaps' URLs are first pages like the start page (depth 0, docs/crawl.md): max_depth
      // counts link hops from any first page, so max_depth 0 scrapes the start page and the sitemaps.
      // The same map reads the site's llms.txt, listed on the crawl (its links are not seeds: a
      // crawl's pages are what its scope and links reach, as the docs say).
      const seedMap = await this.seedMap(start, request, maxPages);
      llmsTxt = seedMap.llms_txt;
      if ((request.sitemap ?? 'include') !== 'skip') {
        const sorted = await sortLinks(id, seedMap.urls, 0, rules);
        seeds.push(...sorted.candidates);
        for (const [reason, n] of Object.entries(sorted.refused) as Array<[keyof SkipCounts, number]>)
          refused[reason] = (refused[reason] ?? 0) + n;
      }
      if (seeds.length === 0)
        zero = (refused.robots ?? 0) > 0 ? 'robots' : (refused.scope ?? 0) + (refused.trap ?? 0) > 0 ? 'scope' : 'nothing_found';
    }
    const now = this.clock.now();
    await this.store.insert(
      {
        ...stored,
        clientId: command.client_id,
        state: zero ? 'completed' : 'running',
        robotsStatus: policy.status,
        maxPages,
        pageCredits,
        maxCredits: request.max_credits ?? null,
        skipped: zero === 'robots' && seeds.length === 0 && Object.keys(refused).length === 0 ? { robots: 1 } : refused,
        zeroPagesReason: zero,
        llmsTxt,
        createdAt: now,
      },
      seeds,
    );
    // Opened now so the crawl's pages and webhook have their run from the start (the worker opens it again, idempotently, after a crash here).
    await this.bus.request(
      SUBJECTS.crawlRuns.open,
      openRunCommand({ id, clientId: command.client_id, url: start.url, request: stored.request }),
    );
    if (zero) await this.bus.request(SUBJECTS.crawlRuns.seal, { run_id: id });
    else this.worker.wake();
    const crawl = await this.store.byId(id);
    return viewOf(crawl!, null);
  }

  /**
   * The sitemaps' URLs (robots' Sitemap lines or /sitemap.xml) within the map's own bounds, and the
   * site's llms.txt with its links judged against the crawl's scope; with sitemap=skip, the llms.txt
   * alone.
   */
  private async seedMap(
    start: ReturnType<typeof normalUrl> & object,
    request: CreateCrawlCommand['request'],
    maxPages: number,
  ): Promise<{ urls: string[]; llms_txt: LlmsTxtReport }> {
    const run = new SiteMapRun(
      start,
      {
        url: start.url,
        include_subdomains: request.include_subdomains,
        domains: request.domains,
        include_paths: request.include_paths,
        exclude_paths: request.exclude_paths,
        sitemap: 'only',
        limit: Math.min(100_000, maxPages * 2),
        timeout_ms: SEED_TIMEOUT_MS,
        ignore_robots: request.ignore_robots === true,
      },
      { fetcher: this.fetcher, gate: this.gate, hostConcurrency: this.config.discoveryHostConcurrency },
    );
    if ((request.sitemap ?? 'include') === 'skip') return { urls: [], llms_txt: await run.readLlmsTxt() };
    const map = await run.run();
    return { urls: map.urls, llms_txt: map.llms_txt };
  }
}

function addCounts(into: Partial<SkipCounts>, more: Partial<SkipCounts>): void {
  for (const [reason, n] of Object.entries(more) as Array<[keyof SkipCounts, number]>) into[reason] = (into[reason] ?? 0) + n;
}
