import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import { CRAWL_LIMITS, type CrawlAction, CrawlRequest, CrawlView, ScrapeRequest, SUBJECTS, toProblems } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { CREDIT_COST } from '@lib/plans';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { CRAWL_ID } from '../batches/resource-id.pipe';
import { CreditGate } from '../credits/credit-gate';
import { RequestValidationError } from '../gateway.errors';
import { Fails, Returns } from '../openapi/operation-contract';

// Reading the sitemaps for the first pages takes up to 15 s; the rest is the database.
const CREATE_TIMEOUT_MS = 60_000;

/** Crawls (issue 39): a site's pages scraped as a run, each once, within its bounds. docs/crawl.md. */
@ApiTags('discovery')
@ApiBearerAuth()
@Controller('v1/crawl')
export class CrawlsController {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly credits: CreditGate,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  @Post()
  @HttpCode(202)
  @Access('client')
  @ApiOperation({
    summary:
      "Start a crawl: the start page, the sitemaps' URLs and the pages reachable by links within max_depth, in scope and allowed by robots.txt, each scraped once (its normal form decides) with the scrape options given, up to max_pages and max_credits. Pages are charged as batch jobs (1 simple, 5 browser) when they run; nothing on this call.",
    description:
      'With dry_run: true nothing is scraped: the crawl is planning, then planned with `plan` (sections, sampled verdicts, block rate, forecast per mode); the sample analyses are charged like viability probes (≤ 30 credits). ' +
      'Answers 202 with the crawl (state running). Follow it with GET /v1/crawl/{crawl_id}; its pages are GET /v1/jobs?batch_id={crawl_id} and GET /v1/jobs/{job_id}/data. A crawl that ends with no page scraped says why in zero_pages_reason. 429 when the month cannot cover one page.',
  })
  @Returns(202, CrawlView, {
    description: 'The crawl, running (or completed at once with zero_pages_reason when robots.txt disallows the start page).',
  })
  @Fails(
    'target.blocked',
    'discovery.invalid_pattern',
    'discovery.invalid_crawl',
    'discovery.robots_override_refused',
    'limits.quota_exceeded',
  )
  async create(@Body() body: CrawlRequest, @Caller() caller: AdmittedCall): Promise<CrawlView> {
    const client = caller.client;
    await this.assertScrapeOptions(body);
    const pageCredits = body.scrape?.browser === true ? CREDIT_COST.browser_request : CREDIT_COST.simple_request;
    if (body.dry_run) await this.credits.assertAvailable(client, CRAWL_LIMITS.plan.worstCaseCredits, "a crawl plan's sample analyses");
    else await this.credits.assertAvailable(client, pageCredits, 'a crawl (one page)');
    return this.bus.request(
      SUBJECTS.discovery.crawlCreate,
      {
        client_id: client.id,
        robots_override_allowed: this.config.ignoreRobotsAllowed,
        max_concurrency: client.limits.batchConcurrency,
        monthly_credits: client.limits.monthlyCredits,
        request: body,
      },
      { correlationId: caller.requestId, timeoutMs: CREATE_TIMEOUT_MS },
    );
  }

  @Get(':crawl_id')
  @Access('client')
  @ApiOperation({
    summary:
      'Where a crawl stands: discovered, queued, completed and failed pages, skips by reason, credits, and why a crawl that ended with no page did.',
  })
  @Returns(200, CrawlView, { description: 'The crawl.' })
  @Fails('discovery.crawl_not_found')
  get(@Param('crawl_id', CRAWL_ID) crawlId: string, @Caller() caller: AdmittedCall): Promise<CrawlView> {
    return this.bus.request(SUBJECTS.discovery.crawlGet, { client_id: caller.client.id, crawl_id: crawlId });
  }

  @Put(':crawl_id/pause')
  @Access('client')
  @ApiOperation({ summary: "Pause: no new page starts (those in flight finish); decision 0014's table, 409 where it refuses." })
  @Returns(200, CrawlView, { description: 'The crawl, paused.' })
  @Fails('discovery.crawl_not_found', 'batch.invalid_state', 'discovery.invalid_state')
  pause(@Param('crawl_id', CRAWL_ID) crawlId: string, @Caller() caller: AdmittedCall): Promise<CrawlView> {
    return this.transition(crawlId, 'pause', caller);
  }

  @Put(':crawl_id/resume')
  @Access('client')
  @ApiOperation({ summary: 'Resume a paused crawl.' })
  @Returns(200, CrawlView, { description: 'The crawl, running.' })
  @Fails('discovery.crawl_not_found', 'batch.invalid_state', 'discovery.invalid_state')
  resume(@Param('crawl_id', CRAWL_ID) crawlId: string, @Caller() caller: AdmittedCall): Promise<CrawlView> {
    return this.transition(crawlId, 'resume', caller);
  }

  @Post(':crawl_id/cancel')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary:
      'Cancel: pages not started end cancelled and uncharged, pages in flight finish; the crawl ends cancelled when the last one does (its webhook once).',
  })
  @Returns(200, CrawlView, { description: 'The crawl, cancelling or cancelled.' })
  @Fails('discovery.crawl_not_found', 'batch.invalid_state', 'discovery.invalid_state')
  cancel(@Param('crawl_id', CRAWL_ID) crawlId: string, @Caller() caller: AdmittedCall): Promise<CrawlView> {
    return this.transition(crawlId, 'cancel', caller);
  }

  private transition(crawlId: string, action: CrawlAction, caller: AdmittedCall): Promise<CrawlView> {
    return this.bus.request(SUBJECTS.discovery.crawlTransition, { client_id: caller.client.id, crawl_id: crawlId, action });
  }

  /** The page options are a ScrapeRequest without its url: validated as one, problems under body.scrape. */
  private async assertScrapeOptions(body: CrawlRequest): Promise<void> {
    if (!body.scrape) return;
    const instance = plainToInstance(ScrapeRequest, { ...body.scrape, url: body.url });
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false });
    if (errors.length > 0) throw new RequestValidationError(toProblems(errors, ['body', 'scrape']));
  }
}
