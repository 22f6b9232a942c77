import type { DownloadRequest, DownloadResultBody, ScrapeExecutionFacts } from '@lib/contracts';
import { CREDIT_COST } from '@lib/plans';
import { TargetGuard } from '@lib/target-guard';
import { Injectable } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { CONTENT_RULES_VERSION } from '@lib/contracts';
import { proxyLabel, ProxyRotation, proxySettingsOf } from '../proxy-rotation/proxy-rotation';
import { FetchFailure } from '@lib/http-fetch';
import { SimpleFetcher } from '@lib/http-fetch';
import { detectContentType } from './content-type-sniffer';

/** Largest file a sync download returns (base64 grows it by a third on the way out). */
export const DOWNLOAD_MAX_BYTES = 25 * 1024 * 1024;

/** One file download: vetted, pinned, through the proxy rotation; 1 credit when the target answered. */
@Injectable()
export class DownloadExecutor {
  constructor(
    private readonly guard: TargetGuard,
    private readonly fetcher: SimpleFetcher,
    private readonly proxies: ProxyRotation,
  ) {}

  async execute(request: DownloadRequest): Promise<{ facts: ScrapeExecutionFacts; result: DownloadResultBody }> {
    const started = performance.now();
    const target = await this.guard.vet(request.url);
    const proxyUrl = this.proxies.next(proxySettingsOf(request.use_proxy).selection);
    const facts = (billable: boolean, statusCode: number | null): ScrapeExecutionFacts => ({
      billable,
      credits: billable ? CREDIT_COST.simple_request : 0,
      mode: 'download',
      target_domain: target.hostname,
      status_code: statusCode,
      block_reason: null,
      protection_stack: [],
      rule_hits: [],
      rules_version: CONTENT_RULES_VERSION,
      proxy: proxyLabel(proxyUrl),
      attempts: 1,
    });
    try {
      const response = await this.fetcher.fetch({ url: request.url, proxyUrl, maxBodyBytes: DOWNLOAD_MAX_BYTES }, target);
      return {
        facts: facts(true, response.statusCode),
        result: {
          content: response.body.toString('base64'),
          contentType: detectContentType(response.contentType, response.body),
          statusCode: response.statusCode,
          message: response.statusMessage || STATUS_CODES[response.statusCode] || '',
          executionTime: Math.round(performance.now() - started) / 1000,
        },
      };
    } catch (error) {
      if (!(error instanceof FetchFailure)) throw error;
      return {
        facts: facts(false, null),
        result: {
          content: null,
          contentType: null,
          statusCode: 0,
          message: `${error.errorType}: ${error.message}`,
          executionTime: Math.round(performance.now() - started) / 1000,
        },
      };
    }
  }
}
