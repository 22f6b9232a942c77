import {
  CapturedNetworkRequest,
  MAX_API_REPLAYS,
  ScrapeResultBody,
  ViabilityDepth,
  ViabilityModeTest,
  ViabilityResult,
} from '@lib/contracts';
import { assessProtection, ProtectionEvidence, visibleTextOf } from '@lib/page-evidence';
import { TargetBlockedError, TargetGuard } from '@lib/target-guard';
import { Injectable } from '@nestjs/common';
import { discoverApi } from './api-discovery';
import { assessJavaScriptNeed } from './javascript-need';
import { modeTestOf } from './mode-test';
import { recommendStrategy, UrlFindings } from './strategy-recommendation';
import type { ProbeAttempt, UrlProber } from './url-prober';

/**
 * Extracted main content shorter than this (markdown characters) — and shorter than half of the
 * page's own visible text, so a page that is simply short still passes — is not the page's content.
 */
export const MAIN_CONTENT_MIN_CHARS = 200;
/** How long the browser probe keeps listening for xhr/fetch after the load event, ms. */
const LISTEN_AFTER_LOAD_MS = 250;

/**
 * The viability analysis of one URL (spec 2.15), as a use case any adapter can drive: the run
 * worker, and later the agent endpoint's `discover` tool. The URL is vetted by the SSRF guard first
 * (refused: a `blocked` verdict with the guard's reason, nothing fetched or charged); then the
 * depth's probes run at once — a plain GET, a GET with main-content extraction, and at standard/full
 * a browser render with xhr/fetch capture — so the analysis takes about as long as its slowest probe.
 * Full depth then replays the discovered endpoints without the page's cookies to learn whether they
 * need credentials. Every field of the entry comes from what the probes saw.
 */
@Injectable()
export class UrlAnalysis {
  constructor(private readonly guard: TargetGuard) {}

  async analyse(url: string, depth: ViabilityDepth, prober: UrlProber): Promise<ViabilityResult> {
    try {
      await this.guard.vet(url);
    } catch (error) {
      if (error instanceof TargetBlockedError)
        // The plain fetch is what the guard refused: its test says so (target_blocked, nothing charged).
        return entryWithoutEvidence(url, `the URL is not a public target (${error.reason}): ${error.message}`, {
          simple_request: {
            success: false,
            status_code: null,
            blocked: true,
            captcha_type: null,
            time_ms: 0,
            credits: 0,
            error: 'target_blocked',
          },
        });
      throw error;
    }
    const browserType = depth === 'full' ? 'heavy' : 'light';
    const [simple, extract, browser] = await Promise.all([
      prober.probe('simple_request', { url, format: 'html' }),
      prober.probe('extract_html', { url, format: 'markdown' }),
      depth === 'quick'
        ? Promise.resolve(null)
        : prober.probe('browser', {
            url,
            browser: true,
            browser_type: browserType,
            format: 'html',
            network_capture: { resource_types: ['xhr', 'fetch'], listen_after_load_ms: LISTEN_AFTER_LOAD_MS },
          }),
    ]);
    const rawHtml = simple.kind === 'answered' ? (simple.result.html ?? '') : '';
    // Null at quick depth (no browser probe) or when the render never reached the site.
    const renderedHtml = browser?.kind === 'answered' && browser.result.statusCode > 0 ? (browser.result.html ?? '') : null;
    const javascript = assessJavaScriptNeed(rawHtml, renderedHtml);
    const tests: UrlFindings['tests'] = {
      simple_request: simple.kind === 'answered' ? modeTestOf(simple.result) : testOfRefusal(simple),
      extract_html: extract.kind === 'answered' ? extractionTestOf(extract.result, javascript.rawTextLength) : testOfRefusal(extract),
      ...(browser ? { browser: browser.kind === 'answered' ? modeTestOf(browser.result) : testOfRefusal(browser) } : {}),
    };
    const guardRefusal =
      simple.kind === 'refused'
        ? simple.error === 'target_blocked'
          ? simple.message
          : null
        : simple.result.guidance.error_type === 'target_blocked'
          ? simple.result.message
          : null;
    if (guardRefusal !== null) {
      // A redirect to a non-public address: the guard stopped the probes there; what they cost (nothing) stays visible.
      return entryWithoutEvidence(url, `the SSRF guard refused the fetch: ${guardRefusal}`, tests);
    }

    const protection = simple.kind === 'answered' ? protectionOf(simple) : protectionOfNothing();
    const traffic: CapturedNetworkRequest[] = browser?.kind === 'answered' ? (browser.result.network_requests ?? []) : [];
    const api = renderedHtml === null ? null : discoverApi(url, visibleTextOf(renderedHtml), rawHtml, traffic);
    const apiAuthRequired =
      depth === 'full' && api?.apiDetected ? await this.replayWithoutCredentials(api.apiEndpoints, traffic, prober) : null;

    const findings: UrlFindings = { url, protection, javascript, api, apiAuthRequired: apiAuthRequired?.required ?? null, tests };
    const recommendation = recommendStrategy(findings);
    return {
      url,
      recommended_strategy: recommendation.strategy,
      javascript_required: javascript.javascriptRequired,
      browser_confidence: javascript.browserConfidence,
      captcha_detected: protection.captchaDetected,
      captcha_providers: protection.captchaProviders,
      cloudflare_level: protection.cloudflareLevel,
      login_wall: protection.loginWall,
      api_detected: api?.apiDetected ?? false,
      api_endpoints: api?.apiEndpoints ?? [],
      api_auth_required: apiAuthRequired?.required ?? api?.authHeadersSeen ?? false,
      can_use_extract_html: recommendation.canUseExtractHtml,
      can_use_browser: recommendation.canUseBrowser,
      can_use_simple_request: recommendation.canUseSimpleRequest,
      tests: {
        simple_request: tests.simple_request!,
        extract_html: tests.extract_html ?? null,
        browser: tests.browser ?? null,
        api_replays: apiAuthRequired?.tests ?? [],
      },
      difficulty: recommendation.difficulty,
      suggested_request: recommendation.suggestedRequest,
      reasons: [
        ...recommendation.reasons,
        ...javascript.reasons,
        ...(api?.reasons ?? []),
        ...(apiAuthRequired?.reasons ?? []),
        ...protection.ruleHits.map((hit) => `rule ${hit}`),
      ],
      protection: [...new Set([...protection.vendorsPresent, ...protection.vendorsChallenging])],
      embedded_data: api?.embeddedData ?? [],
    };
  }

  /**
   * Full depth: each endpoint (at most MAX_API_REPLAYS) fetched again with a plain GET and none of the
   * page's cookies, through the scrape engine and so through the SSRF guard. A 401/403, or a
   * credential the page itself sent with the call, means the endpoint needs authentication.
   */
  private async replayWithoutCredentials(
    endpoints: string[],
    traffic: CapturedNetworkRequest[],
    prober: UrlProber,
  ): Promise<{ required: boolean; reasons: string[]; tests: ViabilityModeTest[] }> {
    const reasons: string[] = [];
    const tests: ViabilityModeTest[] = [];
    let required = false;
    for (const [index, endpoint] of endpoints.slice(0, MAX_API_REPLAYS).entries()) {
      const sentCredentials = traffic.some(
        (r) =>
          r.url === endpoint &&
          Object.keys(r.request_headers).some((h) => ['authorization', 'x-api-key', 'x-auth-token'].includes(h.toLowerCase())),
      );
      const replay = await prober.probe(`api_replay_${index}`, { url: endpoint, format: 'html' });
      // Charged like any probe: reported beside the mode tests, so the URL's tests add up to what it cost.
      tests.push(replay.kind === 'answered' ? modeTestOf(replay.result) : testOfRefusal(replay));
      const status = replay.kind === 'answered' ? replay.result.statusCode : null;
      const refused = status === 401 || status === 403;
      required ||= refused || sentCredentials;
      reasons.push(
        `replayed ${endpoint} without cookies: ${replay.kind === 'answered' ? `HTTP ${status}` : replay.error}${sentCredentials ? '; the page sent it with an authorization header' : ''}`,
      );
    }
    return { required, reasons, tests };
  }
}

function protectionOf(simple: Extract<ProbeAttempt, { kind: 'answered' }>): ProtectionEvidence {
  const response = simple.facts.response ?? null;
  return assessProtection({
    statusCode: simple.result.statusCode,
    headers: response?.headers ?? {},
    body: simple.result.html,
    location: response?.redirects.at(-1) ?? null,
    finalUrl: response?.final_url ?? null,
  });
}

function protectionOfNothing(): ProtectionEvidence {
  return assessProtection({ statusCode: 0, headers: {}, body: null });
}

/**
 * extract_html succeeds when the fetch was usable and the extraction kept the page's content: at
 * least MAIN_CONTENT_MIN_CHARS of markdown, or half of what the raw page shows a reader when the
 * page is shorter than that (a sign-in form or a stub yields next to nothing of either).
 */
export function extractionTestOf(result: ScrapeResultBody, rawVisibleTextLength: number): ViabilityModeTest {
  const test = modeTestOf(result);
  const mainContent = (result.markdown ?? '').replace(/\s+/g, ' ').trim().length;
  const needed = Math.max(1, Math.min(MAIN_CONTENT_MIN_CHARS, Math.floor(rawVisibleTextLength / 2)));
  if (test.success && mainContent < needed) return { ...test, success: false, error: 'thin_main_content' };
  return test;
}

function testOfRefusal(attempt: Extract<ProbeAttempt, { kind: 'refused' }>): ViabilityModeTest {
  return {
    success: false,
    status_code: null,
    blocked: attempt.error === 'target_blocked',
    captcha_type: null,
    time_ms: 0,
    credits: 0,
    error: attempt.error,
  };
}

/**
 * A verdict with nothing seen: a URL the SSRF guard refused (nothing fetched, nothing charged) or one
 * the platform could not analyse. `blocked`, with the reason, and no claim about the site.
 */
export function entryWithoutEvidence(url: string, reason: string, tests: UrlFindings['tests'] = {}): ViabilityResult {
  return {
    url,
    recommended_strategy: 'blocked',
    javascript_required: false,
    browser_confidence: 0,
    captcha_detected: false,
    captcha_providers: [],
    cloudflare_level: 'none',
    login_wall: { detected: false, evidence: [] },
    api_detected: false,
    api_endpoints: [],
    api_auth_required: false,
    can_use_extract_html: false,
    can_use_browser: false,
    can_use_simple_request: false,
    tests: {
      simple_request: tests.simple_request ?? null,
      extract_html: tests.extract_html ?? null,
      browser: tests.browser ?? null,
      api_replays: [],
    },
    difficulty: 'blocked',
    suggested_request: null,
    reasons: [reason],
    protection: [],
    embedded_data: [],
  };
}
