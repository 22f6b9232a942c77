import { MAP_LIMITS, MapSiteRequest, MapSiteResult } from '@lib/contracts';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { Fails, Returns } from '../openapi/operation-contract';
import { SiteDiscoveryCalls } from './site-discovery.calls';

@ApiTags('discovery')
@ApiBearerAuth()
@Controller('v1/map')
export class SiteMapController {
  constructor(private readonly calls: SiteDiscoveryCalls) {}

  @Post()
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary:
      "List a site's URLs without scraping them: robots.txt, its sitemaps (indexes and gzip members followed) and the links of its pages up to max_depth, each URL once in its normal form, only what robots.txt allows and the scope admits. 1 credit (recorded as a simple request); not charged when the site never answered.",
    description:
      `Bounded before it starts: at most limit URLs (≤ ${MAP_LIMITS.urls.max.toLocaleString('en')}), page_fetches HTML pages, timeout_ms; sitemap files 50 MB and 50,000 URLs each, 500 files, 3 index levels. ` +
      'When a bound stops it, the URLs found so far come back with truncated=true and stopped_by. Every fetch and redirect passes the SSRF guard. See docs/crawl.md.',
  })
  @Returns(200, MapSiteResult, {
    description: 'The URLs, with how they were found, what robots.txt and the sitemaps said, and what was skipped.',
  })
  @Fails('target.blocked', 'target.invalid_url', 'discovery.invalid_pattern', 'discovery.robots_override_refused', 'limits.quota_exceeded')
  map(@Body() body: MapSiteRequest, @Caller() caller: AdmittedCall): Promise<MapSiteResult> {
    return this.calls.map(body, caller);
  }
}
