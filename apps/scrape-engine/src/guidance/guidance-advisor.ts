import type { GuidanceErrorType, ScrapeGuidance, ScrapeRequest } from '@lib/contracts';
import type { ContentVerdict } from '../content-validation/content-validator';
import type { BrowserErrorType } from '../browser/browser-failures';
import type { FetchErrorType } from '@lib/http-fetch';

/** The guidance of spec 2.8 (the contract's ScrapeGuidance, with its error types). */
export type Guidance = ScrapeGuidance;

/** What the advisor needs to know about the request that was made. */
export type AdvisedRequest = Pick<ScrapeRequest, 'url' | 'browser' | 'retry_on_block' | 'use_proxy'> & Partial<ScrapeRequest>;

export type ScrapeOutcome =
  | { kind: 'response'; statusCode: number; verdict: ContentVerdict; attempts: number }
  | { kind: 'failure'; errorType: FetchErrorType | BrowserErrorType; message: string; attempts: number };

/**
 * Turns an outcome into advice a client (or an agent) can act on: what went wrong, what to try,
 * a ready-to-send request for the next attempt, and when retrying is pointless.
 */
export class GuidanceAdvisor {
  advise(request: AdvisedRequest, outcome: ScrapeOutcome, creditsCharged: number): Guidance {
    const base = { credits_charged: creditsCharged, credits_refunded: creditsCharged === 0 && outcome.kind === 'failure' };
    if (outcome.kind === 'failure') return { ...base, ...this.forFailure(request, outcome) };
    const { verdict, statusCode } = outcome;
    const provider = verdict.captchaProviders[0] ?? verdict.protectionStack[0] ?? null;
    if (verdict.usable) {
      return { ...base, success: true, error_type: null, error_provider: null, next_steps: [], suggested_request: null, stop_reason: null };
    }
    const hardened = {
      ...request,
      browser: true,
      browser_type: 'heavy',
      retry_on_block: true,
      use_proxy: request.use_proxy ?? 'any',
      http_method: null,
    };
    const alreadyHardened = request.browser && request.retry_on_block;
    switch (verdict.blockReason) {
      case 'captcha':
        return {
          ...base,
          success: false,
          error_type: 'captcha',
          error_provider: provider,
          next_steps: alreadyHardened
            ? [
                'The CAPTCHA persisted through a real browser and IP rotation.',
                'Try a country proxy matching the site audience, or slow down.',
              ]
            : ['Retry with browser=true (heavy) and retry_on_block=true: a fresh IP and fingerprint often avoid the CAPTCHA.'],
          suggested_request: alreadyHardened ? null : hardened,
          stop_reason: alreadyHardened
            ? 'A CAPTCHA was shown on every attempt with browser and rotation; it has to be solved, retrying will not help.'
            : null,
        };
      case 'cloudflare_challenge':
      case 'challenge':
        return {
          ...base,
          success: false,
          error_type: verdict.blockReason,
          error_provider: provider,
          next_steps: request.browser
            ? ['The challenge was not passed by the browser; retry later through another proxy.']
            : ['The site serves a JavaScript challenge: retry with browser=true (heavy), which can pass it.'],
          suggested_request: request.browser && alreadyHardened ? null : hardened,
          stop_reason: alreadyHardened ? 'The anti-bot challenge blocked every attempt with browser and rotation.' : null,
        };
      case 'hard_block':
      case 'soft_block': {
        const rateLimited = statusCode === 429;
        return {
          ...base,
          success: false,
          error_type: verdict.blockReason,
          error_provider: provider,
          next_steps: rateLimited
            ? ['The site rate-limited this request (429): wait before retrying and send fewer requests per minute.']
            : [
                'The site refused this client: retry with retry_on_block=true (another IP and fingerprint), and browser=true if it persists.',
              ],
          suggested_request: alreadyHardened ? null : { ...request, retry_on_block: true, use_proxy: request.use_proxy ?? 'any' },
          stop_reason: alreadyHardened ? 'Blocked on every attempt with browser and rotation.' : null,
        };
      }
      case 'empty_shell': {
        const data = verdict.embeddedData.filter((d) => d.text > 0).sort((a, b) => b.text - a.text)[0];
        return {
          ...base,
          success: false,
          error_type: 'empty_shell',
          error_provider: provider,
          next_steps: request.browser
            ? ['The page stayed empty after rendering; wait for its content with a wait-for-selector action.']
            : [
                'The page is rendered by JavaScript: retry with browser=true (light is enough unless it is protected).',
                ...(data
                  ? [
                      `Its text is in the data its scripts render from (${data.source}, about ${data.text.toLocaleString('en-US')} characters of text): request format=html to read that data without a browser.`,
                    ]
                  : []),
              ],
          suggested_request: request.browser ? null : { ...request, browser: true, browser_type: 'light', http_method: null },
          stop_reason: null,
        };
      }
      default:
        return this.forStatus(request, statusCode, base, provider);
    }
  }

  private forStatus(
    request: AdvisedRequest,
    statusCode: number,
    base: Pick<Guidance, 'credits_charged' | 'credits_refunded'>,
    provider: string | null,
  ): Guidance {
    if (statusCode >= 500) {
      return {
        ...base,
        success: false,
        error_type: 'http_5xx',
        error_provider: provider,
        next_steps: [`The site failed (${statusCode}); retry later.`],
        suggested_request: { ...request },
        stop_reason: null,
      };
    }
    const gone = statusCode === 404 || statusCode === 410;
    return {
      ...base,
      success: false,
      error_type: 'http_4xx',
      error_provider: provider,
      next_steps: gone
        ? ['Check the URL: the page does not exist.']
        : [`The site answered ${statusCode}; check the URL, method, headers and payload.`],
      suggested_request: null,
      stop_reason: gone ? `The page does not exist (${statusCode}); retrying will not help.` : null,
    };
  }

  private forFailure(
    request: AdvisedRequest,
    outcome: Extract<ScrapeOutcome, { kind: 'failure' }>,
  ): Omit<Guidance, 'credits_charged' | 'credits_refunded'> {
    const common = { success: false, error_type: outcome.errorType as GuidanceErrorType, error_provider: null };
    switch (outcome.errorType) {
      case 'dns_error':
        return {
          ...common,
          next_steps: ['The host name does not resolve: check the URL for typos.'],
          suggested_request: null,
          stop_reason: 'The host does not exist in DNS; retrying will not help.',
        };
      case 'target_blocked':
        return {
          ...common,
          next_steps: ['The site redirected to a private or internal address, which is never fetched.'],
          suggested_request: null,
          stop_reason: 'The target redirects to a non-public address.',
        };
      case 'body_too_large':
        return {
          ...common,
          next_steps: ['The response is larger than the body limit; use /v1/sync/download for files, or a more specific URL.'],
          suggested_request: null,
          stop_reason: 'The body exceeds the size limit.',
        };
      case 'too_many_redirects':
        return {
          ...common,
          next_steps: ['The site redirects in a loop; check the URL, or send the cookies it expects.'],
          suggested_request: null,
          stop_reason: 'Redirect loop.',
        };
      case 'tls_error':
        return {
          ...common,
          next_steps: ['The site presented an invalid TLS certificate; try the http:// URL if the site offers one.'],
          suggested_request: null,
          stop_reason: 'The certificate is not valid.',
        };
      case 'proxy_error':
        return {
          ...common,
          next_steps: ['The proxy failed; retry (another proxy will be used).'],
          suggested_request: { ...request, use_proxy: request.use_proxy ?? 'any' },
          stop_reason: null,
        };
      case 'timeout':
        return {
          ...common,
          next_steps: request.browser
            ? [
                'The page did not finish loading in time (a slow site, or a script that never ends); retry, or try browser_type "light" or without browser.',
              ]
            : ['The site did not answer in time; retry, possibly through a proxy closer to it.'],
          suggested_request: { ...request, use_proxy: request.use_proxy ?? 'any' },
          stop_reason: null,
        };
      case 'browser_unavailable':
        return {
          ...common,
          next_steps: [
            'Browser mode is not available on this deployment (no Chromium could start); send the request without browser, or ask the operator to install Chromium.',
          ],
          suggested_request: { ...request, browser: false, browser_type: 'heavy', screenshot: false, actions: null, network_capture: null },
          stop_reason: 'No browser can run here; retrying will not help.',
        };
      case 'browser_busy':
        return {
          ...common,
          next_steps: ['Every browser slot stayed busy; retry in a few seconds, or send fewer browser requests at once.'],
          suggested_request: { ...request },
          stop_reason: null,
        };
      case 'browser_error':
        return {
          ...common,
          next_steps: [
            'The browser crashed or stopped responding while loading this page; it has been replaced. Retry; if the page crashes it again, use browser_type "light" or simple mode.',
          ],
          suggested_request: { ...request },
          stop_reason: null,
        };
      default:
        return { ...common, next_steps: ['The connection failed; retry shortly.'], suggested_request: { ...request }, stop_reason: null };
    }
  }
}
