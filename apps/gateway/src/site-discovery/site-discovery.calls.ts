import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import {
  CRAWL_LIMITS,
  type CrawlAction,
  type CrawlRequest,
  type CrawlView,
  LLMS_TXT_LIMITS,
  type LlmsTxtRequest,
  type LlmsTxtView,
  MAP_LIMITS,
  type MapSiteRequest,
  type MapSiteResult,
  SyncScrapeRequest,
  SUBJECTS,
  toProblems,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { CREDIT_COST } from '@lib/plans';
import { Inject, Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { AdmittedCall } from '../admission/caller.decorator';
import { ChargedExecution } from '../credits/charged-execution';
import { CreditGate } from '../credits/credit-gate';
import { RequestValidationError } from '../gateway.errors';

/** Time the bus waits beyond a map's own timeout (it answers with what it found when that runs out). */
const MAP_REPLY_MARGIN_MS = 15_000;
// Reading the sitemaps for a crawl's first pages takes up to 15 s; the rest is the database.
const CRAWL_CREATE_TIMEOUT_MS = 60_000;
// A thousand stored pages read eight at a time.
const LLMS_TXT_REPLY_TIMEOUT_MS = 120_000;

/**
 * The map and crawl use cases on the gateway's side, shared by the REST controllers and the agent
 * endpoint's tools (one admission, one charge path, one validation).
 */
@Injectable()
export class SiteDiscoveryCalls {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly charged: ChargedExecution,
    private readonly credits: CreditGate,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** 1 credit, recorded as a simple request; not charged when the site never answered. */
  map(request: MapSiteRequest, caller: AdmittedCall): Promise<MapSiteResult> {
    return this.charged.run(caller, 'map', CREDIT_COST.simple_request, async () => {
      const result = await this.bus.request(
        SUBJECTS.discovery.map,
        { client_id: caller.client.id, request_id: caller.requestId, robots_override_allowed: this.config.ignoreRobotsAllowed, request },
        { correlationId: caller.requestId, timeoutMs: (request.timeout_ms ?? MAP_LIMITS.timeoutMs.default) + MAP_REPLY_MARGIN_MS },
      );
      const answered = siteAnswered(result);
      return {
        facts: {
          billable: answered,
          credits: CREDIT_COST.simple_request,
          mode: 'simple',
          target_domain: new URL(result.url).hostname,
          status_code: null,
          block_reason: null,
          protection_stack: [],
          rule_hits: [],
          rules_version: 'map',
          proxy: null,
          attempts: 1,
        },
        result,
        outcome: { success: answered && result.count > 0, executionMs: result.duration_ms },
      };
    });
  }

  /** Starts a crawl or a plan (dry_run); refused (429) when the month cannot cover one page, or a plan's worst case. */
  async startCrawl(request: CrawlRequest, caller: AdmittedCall): Promise<CrawlView> {
    const client = caller.client;
    await assertScrapeOptions(request);
    const pageCredits = request.scrape?.browser === true ? CREDIT_COST.browser_request : CREDIT_COST.simple_request;
    if (request.dry_run)
      await this.credits.assertAvailable(client, CRAWL_LIMITS.plan.worstCaseCredits, "a crawl plan's sample analyses", caller.requestId);
    else await this.credits.assertAvailable(client, pageCredits, 'a crawl (one page)', caller.requestId);
    return this.bus.request(
      SUBJECTS.discovery.crawlCreate,
      {
        client_id: client.id,
        robots_override_allowed: this.config.ignoreRobotsAllowed,
        max_concurrency: client.limits.batchConcurrency,
        monthly_credits: client.limits.monthlyCredits,
        request,
      },
      { correlationId: caller.requestId, timeoutMs: CRAWL_CREATE_TIMEOUT_MS },
    );
  }

  crawl(crawlId: string, caller: AdmittedCall): Promise<CrawlView> {
    return this.bus.request(
      SUBJECTS.discovery.crawlGet,
      { client_id: caller.client.id, crawl_id: crawlId },
      { correlationId: caller.requestId },
    );
  }

  /**
   * POST /v1/llms-txt: a crawl of the site as its llms.txt wants it (markdown of the main content,
   * whose metadata gives titles and descriptions), then where its file stands.
   */
  async startLlmsTxt(request: LlmsTxtRequest, caller: AdmittedCall): Promise<LlmsTxtView> {
    const { max_pages, browser, ...scope } = request;
    const crawl = await this.startCrawl(
      {
        ...scope,
        max_pages: max_pages ?? LLMS_TXT_LIMITS.pages.default,
        scrape: { format: 'markdown', only_main_content: true, ...(browser ? { browser: true } : {}) },
      },
      caller,
    );
    return this.llmsTxt(crawl.crawl_id, caller);
  }

  /** The llms.txt of one of the client's crawls, made once it has ended (free: its pages were charged by the crawl). */
  async llmsTxt(crawlId: string, caller: AdmittedCall): Promise<LlmsTxtView> {
    return this.bus.unpack(
      await this.bus.request(
        SUBJECTS.discovery.llmsTxt,
        { client_id: caller.client.id, crawl_id: crawlId },
        { correlationId: caller.requestId, timeoutMs: LLMS_TXT_REPLY_TIMEOUT_MS },
      ),
    );
  }

  transition(crawlId: string, action: CrawlAction, caller: AdmittedCall): Promise<CrawlView> {
    return this.bus.request(
      SUBJECTS.discovery.crawlTransition,
      { client_id: caller.client.id, crawl_id: crawlId, action },
      { correlationId: caller.requestId },
    );
  }
}

/** Whether anything on the site answered (robots.txt, a sitemap or a page): a map of a site that never did is not charged. */
function siteAnswered(result: MapSiteResult): boolean {
  return (
    result.pages_fetched > result.skipped.failed + result.skipped.blocked ||
    result.robots.status === 'found' ||
    result.robots.status === 'none' ||
    result.sitemaps.some(
      (s) => s.outcome !== 'failed' && s.outcome !== 'blocked' && s.outcome !== 'out_of_scope' && s.outcome !== 'over_limit',
    )
  );
}

/** The page options are a scrape request without its url (max_age included: decision 0037): validated as one, problems under body.scrape. */
async function assertScrapeOptions(request: CrawlRequest): Promise<void> {
  if (!request.scrape) return;
  const instance = plainToInstance(SyncScrapeRequest, { ...request.scrape, url: request.url });
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false });
  if (errors.length > 0) throw new RequestValidationError(toProblems(errors, ['body', 'scrape']));
}
