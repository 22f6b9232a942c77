import {
  BROWSER_ACTION_MODELS,
  DownloadRequest,
  DownloadResultBody,
  ProxyConfig,
  ScrapeResultBody,
  WindowedScrapeRequest,
} from '@lib/contracts';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { Fails, Returns } from '../openapi/operation-contract';
import { SCRAPE_EXAMPLE } from '../openapi/response-examples';
import { SyncScrapeHandler } from './sync-scrape.handler';

/** What a sync scrape and a download can fail with: both vet the target, honour proxy approvals, hold credits and wait on a worker. */
const SYNC_FETCH_FAILURES = [
  'target.blocked',
  'target.invalid_url',
  'scrape.invalid_request',
  'proxy.country_not_approved',
  'proxy.unknown_country',
  'proxy.pool_missing',
  'limits.quota_exceeded',
  'transport.worker_lost',
] as const;

/** What a sync scrape can fail with (POST /v1/sync/scrape, GET /v1/read): a fetch's failures and the browser's fair share. */
export const SYNC_SCRAPE_FAILURES = [...SYNC_FETCH_FAILURES, 'scrape.browser_share_exceeded', 'scrape.browser_capacity_exhausted'] as const;

@ApiTags('sync')
@ApiBearerAuth()
@ApiExtraModels(ProxyConfig, ...BROWSER_ACTION_MODELS)
@Controller('v1/sync')
export class SyncScrapeController {
  constructor(private readonly handler: SyncScrapeHandler) {}

  @Post('scrape')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary:
      'Scrape one URL and return it (spec 2.7). 1 credit in simple mode, 5 with browser=true; infrastructure failures (DNS, connection, timeout, proxy, browser crash) are not charged, site-level blocks are.',
    description:
      'browser=true renders the page in Chromium: browser_type heavy (stealth, consistent fingerprint) or light (faster; skips images, fonts and media unless a screenshot is asked for). ' +
      'Every request the page makes passes the SSRF guard. Browser responses add action_error (the action that stopped the list, or null) and timings.actions_ms. ' +
      'network_requests entries: {url, method, resource_type, status, mime_type, request_headers, response_headers, size (bytes received), duration (ms), body (document/xhr/fetch, at most 256 KB), body_encoding, body_truncated, error}.',
  })
  @Returns(200, ScrapeResultBody, {
    description: "The scrape response with timings and guidance; statusCode is the target's (0 when it never answered).",
    example: SCRAPE_EXAMPLE,
  })
  @Fails(...SYNC_SCRAPE_FAILURES)
  scrape(@Body() body: WindowedScrapeRequest, @Caller() caller: AdmittedCall): Promise<ScrapeResultBody> {
    return this.handler.scrape(body, caller);
  }

  @Post('download')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({ summary: 'Download one file (spec 2.9): base64 content with its detected MIME type. 1 credit when the target answered.' })
  @Returns(200, DownloadResultBody, {
    description: 'The file as base64 with its detected MIME type; statusCode 0 when the target never answered (not charged).',
  })
  @Fails(...SYNC_FETCH_FAILURES)
  download(@Body() body: DownloadRequest, @Caller() caller: AdmittedCall): Promise<DownloadResultBody> {
    return this.handler.download(body, caller);
  }
}
