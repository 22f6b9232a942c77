import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import { MAP_LIMITS, MapSiteRequest, MapSiteResult, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { CREDIT_COST } from '@lib/plans';
import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { ChargedExecution } from '../credits/charged-execution';
import { Fails, Returns } from '../openapi/operation-contract';

/** Time the bus waits beyond the map's own timeout (it answers with what it found when that runs out). */
const REPLY_MARGIN_MS = 15_000;

@ApiTags('discovery')
@ApiBearerAuth()
@Controller('v1/map')
export class SiteMapController {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly charged: ChargedExecution,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

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
  @Fails('target.blocked', 'discovery.invalid_pattern', 'discovery.robots_override_refused', 'limits.quota_exceeded')
  map(@Body() body: MapSiteRequest, @Caller() caller: AdmittedCall): Promise<MapSiteResult> {
    return this.charged.run(caller, 'map', CREDIT_COST.simple_request, async () => {
      const result = await this.bus.request(
        SUBJECTS.discovery.map,
        {
          client_id: caller.client.id,
          request_id: caller.requestId,
          robots_override_allowed: this.config.ignoreRobotsAllowed,
          request: body,
        },
        { correlationId: caller.requestId, timeoutMs: (body.timeout_ms ?? MAP_LIMITS.timeoutMs.default) + REPLY_MARGIN_MS },
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
