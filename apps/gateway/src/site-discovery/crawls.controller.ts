import { type CrawlAction, CrawlRequest, CrawlView } from '@lib/contracts';
import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { CRAWL_ID } from '../resource-ids/resource-id.pipe';
import { Fails, Returns } from '../openapi/operation-contract';
import { SiteDiscoveryCalls } from './site-discovery.calls';
/** Crawls (issue 39): a site's pages scraped as a run, each once, within its bounds. docs/crawl.md. */
@ApiTags('discovery')
@ApiBearerAuth()
@Controller('v1/crawl')
export class CrawlsController {
  constructor(private readonly calls: SiteDiscoveryCalls) {}

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
    'target.invalid_url',
    'discovery.invalid_pattern',
    'discovery.invalid_crawl',
    'discovery.robots_override_refused',
    'limits.quota_exceeded',
  )
  create(@Body() body: CrawlRequest, @Caller() caller: AdmittedCall): Promise<CrawlView> {
    return this.calls.startCrawl(body, caller);
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
    return this.calls.crawl(crawlId, caller);
  }

  @Put(':crawl_id/pause')
  @Access('client')
  @ApiOperation({ summary: "Pause: no new page starts (those in flight finish); decision 0014's table, 409 where it refuses." })
  @Returns(200, CrawlView, { description: 'The crawl, paused.' })
  @Fails('discovery.crawl_not_found', 'run.invalid_state', 'discovery.invalid_state')
  pause(@Param('crawl_id', CRAWL_ID) crawlId: string, @Caller() caller: AdmittedCall): Promise<CrawlView> {
    return this.transition(crawlId, 'pause', caller);
  }

  @Put(':crawl_id/resume')
  @Access('client')
  @ApiOperation({ summary: 'Resume a paused crawl.' })
  @Returns(200, CrawlView, { description: 'The crawl, running.' })
  @Fails('discovery.crawl_not_found', 'run.invalid_state', 'discovery.invalid_state')
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
  @Fails('discovery.crawl_not_found', 'run.invalid_state', 'discovery.invalid_state')
  cancel(@Param('crawl_id', CRAWL_ID) crawlId: string, @Caller() caller: AdmittedCall): Promise<CrawlView> {
    return this.transition(crawlId, 'cancel', caller);
  }

  private transition(crawlId: string, action: CrawlAction, caller: AdmittedCall): Promise<CrawlView> {
    return this.calls.transition(crawlId, action, caller);
  }
}
