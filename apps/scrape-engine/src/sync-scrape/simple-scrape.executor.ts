import { CREDIT_COST } from '@lib/plans';
import type { ScrapeExecutionFacts, ScrapeRequest, ScrapeResultBody } from '@lib/contracts';
import { TargetGuard } from '@lib/target-guard';
import { Injectable } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONTENT_RULES_VERSION } from '../content-validation/content-rules';
import { ContentValidator, ContentVerdict } from '../content-validation/content-validator';
import { InvalidSelectorError, SelectorExtractor } from '../extraction/selector-extractor';
import { MarkdownConverter } from '../formats/markdown-converter';
import { GuidanceAdvisor, ScrapeOutcome } from '../guidance/guidance-advisor';
import { proxyLabel, ProxyRotation, proxySettingsOf } from '../proxy-rotation/proxy-rotation';
import { InvalidScrapeRequestError } from '../scrape-engine.errors';
import { FetchedResponse, SimpleFetcher } from '../simple-fetch/simple-fetcher';
import { FetchFailure, ProxyFailure } from '../simple-fetch/fetch-failures';

/** Extra attempts on a block with retry_on_block (spec 2.1). */
export const BLOCK_RETRIES = 3;

/**
 * One simple-mode scrape: vet the target, fetch through the proxy rotation (retrying proxy
 * failures on another proxy with the request's backoff, and blocks when retry_on_block asks),
 * classify what came back, shape it as the spec 2.7 response with its guidance.
 */
@Injectable()
export class SimpleScrapeExecutor {
  constructor(
    private readonly guard: TargetGuard,
    private readonly fetcher: SimpleFetcher,
    private readonly proxies: ProxyRotation,
    private readonly validator: ContentValidator,
    private readonly markdown: MarkdownConverter,
    private readonly extractor: SelectorExtractor,
    private readonly advisor: GuidanceAdvisor,
  ) {}

  async execute(request: ScrapeRequest): Promise<{ facts: ScrapeExecutionFacts; result: ScrapeResultBody }> {
    const started = performance.now();
    if (request.extract) {
      try {
        this.extractor.assertValid(request.extract);
      } catch (error) {
        if (error instanceof InvalidSelectorError) throw new InvalidScrapeRequestError(error.message, { field: `extract.${error.field}` });
        throw error;
      }
    }
    const firstHop = await this.guard.vet(request.url);
    const proxy = proxySettingsOf(request.use_proxy);
    let proxyRetriesLeft = proxy.maxRetries;
    let blockRetriesLeft = request.retry_on_block ? BLOCK_RETRIES : 0;
    let attempts = 0;
    let response: FetchedResponse | null = null;
    let verdict: ContentVerdict | null = null;
    let failure: FetchFailure | null = null;
    let proxyUrl: string | null = null;
    const navigationStarted = performance.now();
    for (;;) {
      attempts += 1;
      proxyUrl = this.proxies.next(proxy.selection);
      try {
        response = await this.fetcher.fetch(
          {
            url: request.url,
            method: request.http_method?.method ?? 'get',
            payload: request.http_method?.payload ?? null,
            contentType: request.http_method?.content_type ?? 'json',
            headers: request.headers,
            cookies: request.cookies,
            language: request.language || undefined,
            windowSize: request.window_size,
            proxyUrl,
          },
          attempts === 1 ? firstHop : undefined,
        );
        failure = null;
        verdict = this.validator.validate({ statusCode: response.statusCode, headers: response.headers, contentType: response.contentType, body: response.text });
        if (!verdict.usable && verdict.blockReason && blockRetriesLeft > 0) {
          blockRetriesLeft -= 1;
          continue;
        }
        break;
      } catch (error) {
        if (!(error instanceof FetchFailure)) throw error;
        failure = error;
        // The outcome is this attempt's: forget what an earlier (blocked) attempt answered.
        response = null;
        verdict = null;
        const viaProxy = proxyUrl !== null || error instanceof ProxyFailure;
        if (error.retryable && viaProxy && proxyRetriesLeft > 0) {
          await sleep(proxy.delayMs * proxy.backoff ** (proxy.maxRetries - proxyRetriesLeft));
          proxyRetriesLeft -= 1;
          continue;
        }
        break;
      }
    }
    const navigationMs = performance.now() - navigationStarted;
    const extractionStarted = performance.now();
    const billable = response !== null;
    const credits = billable ? CREDIT_COST.simple_request : 0;
    const body = response ? this.shape(request, response) : emptyBody();
    const extractionMs = performance.now() - extractionStarted;
    const outcome: ScrapeOutcome = response && verdict ? { kind: 'response', statusCode: response.statusCode, verdict, attempts } : { kind: 'failure', errorType: failure!.errorType, message: failure!.message, attempts };
    const totalMs = performance.now() - started;
    const result: ScrapeResultBody = {
      ...body,
      statusCode: response?.statusCode ?? 0,
      message: response ? response.statusMessage || httpReason(response.statusCode) : failure!.message,
      executionTime: Math.round(totalMs) / 1000,
      potentiallyBlockedByCaptcha: verdict?.potentiallyBlockedByCaptcha ?? false,
      timings: { queue_wait_ms: 0, proxy_ms: 0, navigation_ms: round(navigationMs), extraction_ms: round(extractionMs), total_ms: round(totalMs) },
      guidance: this.advisor.advise(request as unknown as Parameters<GuidanceAdvisor['advise']>[0], outcome, credits) as unknown as Record<string, unknown>,
    };
    const facts: ScrapeExecutionFacts = {
      billable,
      credits,
      mode: 'simple',
      target_domain: firstHop.hostname,
      status_code: response?.statusCode ?? null,
      block_reason: verdict?.blockReason ?? null,
      protection_stack: verdict?.protectionStack ?? [],
      rule_hits: verdict?.ruleHits ?? [],
      rules_version: CONTENT_RULES_VERSION,
      proxy: proxyLabel(proxyUrl),
      attempts,
    };
    return { facts, result };
  }

  private shape(request: ScrapeRequest, response: FetchedResponse): Omit<ScrapeResultBody, 'statusCode' | 'message' | 'executionTime' | 'potentiallyBlockedByCaptcha' | 'timings' | 'guidance'> {
    const base = { screenshot: null, evaluate_results: null, network_requests: null, body_url: null, content_type: response.contentType };
    if (response.text === null) {
      return { ...base, html: '', markdown: null, extracted_data: null, body_base64: response.body.toString('base64') };
    }
    const isHtml = response.contentType === null || /html|xml/i.test(response.contentType);
    const markdown = request.format === 'markdown' ? (isHtml ? this.markdown.convert(response.text, response.url) : response.text) : null;
    const extracted = request.extract && isHtml ? this.extractor.extract(response.text, response.url, request.extract) : null;
    return { ...base, html: request.format === 'html' ? response.text : null, markdown, extracted_data: extracted, body_base64: null };
  }
}

function emptyBody() {
  return { html: null, markdown: null, screenshot: null, extracted_data: null, evaluate_results: null, network_requests: null, content_type: null, body_base64: null, body_url: null };
}

function httpReason(status: number): string {
  return STATUS_CODES[status] ?? '';
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
