import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import { SimpleFetcher } from '@lib/http-fetch';
import { createHealthController } from '@lib/runtime';
import { TargetGuard, targetGuardProvider } from '@lib/target-guard';
import { Module } from '@nestjs/common';
import { CrawlLauncher } from './crawls/crawl-launcher';
import { CrawlLifecycle } from './crawls/crawl-lifecycle';
import { CrawlPlanner } from './crawls/crawl-planner';
import { CrawlRulebook } from './crawls/crawl-rulebook';
import { CrawlViews } from './crawls/crawl-views';
import { CrawlWorker } from './crawls/crawl-worker';
import { CrawlLlmsTxt } from './llms-txt/crawl-llms-txt';
import { CrawlsController } from './crawls/crawls.controller';
import { CrawlStore } from './persistence/crawl.store';
import { FetchGate } from './site-map/fetch-gate';
import { SiteMapController } from './site-map/site-map.controller';
import { SiteMapper } from './site-map/site-mapper';

/**
 * site-discovery: what a site consists of (issue 39) — robots.txt (robots/), sitemaps (sitemaps/),
 * one normal form per URL (libs/url-normal-form, shared with scrape-engine, which tells a crawl page's twins), scope and trap rules (scope/), per-host politeness
 * (politeness/), links of a page (page-links/). POST /v1/map (site-map/) and crawls (crawls/): the
 * crawl's pages are jobs of a run of kind crawl on the job engine; this context decides which pages
 * (frontier, politeness) and when the run ends.
 * Every fetch is plain HTTP through @lib/http-fetch, every hop vetted by the SSRF guard.
 */
@Module({
  controllers: [createHealthController('site-discovery'), SiteMapController, CrawlsController],
  providers: [
    targetGuardProvider,
    { provide: SimpleFetcher, inject: [TargetGuard], useFactory: (guard: TargetGuard) => new SimpleFetcher(guard) },
    // One gate for every discovery fetch of the process: maps, a crawl's seeds and a plan's map.
    { provide: FetchGate, inject: [PLATFORM_CONFIG], useFactory: (config: PlatformConfig) => new FetchGate(config.discoveryConcurrency) },
    SiteMapper,
    CrawlStore,
    CrawlRulebook,
    CrawlPlanner,
    CrawlWorker,
    CrawlLauncher,
    CrawlViews,
    CrawlLifecycle,
    CrawlLlmsTxt,
  ],
})
export class SiteDiscoveryModule {}
