import { SimpleFetcher } from '@lib/http-fetch';
import { createHealthController } from '@lib/runtime';
import { TargetGuard, targetGuardProvider } from '@lib/target-guard';
import { Module } from '@nestjs/common';
import { SiteMapController } from './site-map/site-map.controller';
import { SiteMapper } from './site-map/site-mapper';

/**
 * site-discovery: what a site consists of (issue 39) — robots.txt (robots/), sitemaps (sitemaps/),
 * one normal form per URL (url-normal-form/), scope and trap rules (scope/), per-host politeness
 * (politeness/), links of a page (page-links/). POST /v1/map is its first use case (site-map/).
 * Every fetch is plain HTTP through @lib/http-fetch, every hop vetted by the SSRF guard.
 */
@Module({
  controllers: [createHealthController('site-discovery'), SiteMapController],
  providers: [
    targetGuardProvider,
    { provide: SimpleFetcher, inject: [TargetGuard], useFactory: (guard: TargetGuard) => new SimpleFetcher(guard) },
    SiteMapper,
  ],
})
export class SiteDiscoveryModule {}
