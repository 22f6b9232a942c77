import type { ViabilityModeTest } from '@lib/contracts';
import type { ProtectionEvidence } from '@lib/page-evidence';
import type { ApiDiscovery } from './api-discovery';
import type { JavaScriptNeed } from './javascript-need';

export const PROBE_MODES = ['simple_request', 'extract_html', 'browser'] as const;
export type ProbeMode = (typeof PROBE_MODES)[number];

/** Spec 2.15 per-mode test result. */
export type ModeTest = ViabilityModeTest;

export const STRATEGIES = ['extract_html', 'browser', 'api', 'blocked'] as const;
export type Strategy = (typeof STRATEGIES)[number];
export type Difficulty = 'easy' | 'medium' | 'hard' | 'blocked';

/** Everything the probes of one URL found. */
export interface UrlFindings {
  url: string;
  protection: ProtectionEvidence;
  /** At quick depth judged from the raw HTML alone (an empty app root or a noscript prompt). */
  javascript: JavaScriptNeed | null;
  /** Null at quick depth (no traffic captured). */
  api: ApiDiscovery | null;
  /** Full depth replays the endpoints without the page's cookies; null when not tried. */
  apiAuthRequired: boolean | null;
  tests: Partial<Record<ProbeMode, ModeTest>>;
}

export interface Recommendation {
  strategy: Strategy;
  difficulty: Difficulty;
  /** A ready-to-send POST /v1/sync/scrape body for the strategy; null when blocked. */
  suggestedRequest: Record<string, unknown> | null;
  reasons: string[];
  canUseSimpleRequest: boolean;
  canUseExtractHtml: boolean;
  canUseBrowser: boolean;
}

/**
 * The decision, rule by rule, first match wins:
 * 1. a login wall → blocked (credentials are not ours to supply);
 * 2. unauthenticated same-site JSON carrying the page's content, on a page that needs JavaScript → api;
 * 3. the simple fetch delivered the content and no JavaScript is needed → extract_html (as html,
 *    not markdown, when the page answered but its main content did not convert);
 * 4. the browser delivered it → browser (heavy when an anti-bot vendor is present or challenged);
 * 5. quick depth (no browser test): an app shell the raw HTML leaves empty, with no challenge or
 *    CAPTCHA in front of it → browser, untested;
 * 6. otherwise → blocked (spec 4.6: an active CAPTCHA, a Cloudflare challenge, a refusal, or no mode
 *    delivered content). A JavaScript challenge seen at quick depth says a deeper test may pass it.
 */
export function recommendStrategy(findings: UrlFindings): Recommendation {
  const { protection, javascript, api, tests } = findings;
  const can = {
    canUseSimpleRequest: tests.simple_request?.success ?? false,
    canUseExtractHtml: tests.extract_html?.success ?? false,
    canUseBrowser: tests.browser?.success ?? false,
  };
  const reasons: string[] = [];
  const protectedSite = protection.vendorsPresent.length > 0 || protection.vendorsChallenging.length > 0;
  const challenged = protection.vendorsChallenging.length > 0;
  if (protectedSite)
    reasons.push(
      `anti-bot protection: ${[...new Set([...protection.vendorsPresent, ...protection.vendorsChallenging])].join(', ')}${challenged ? ` (challenging: ${protection.vendorsChallenging.join(', ')})` : ' (present, not challenging)'}`,
    );
  const verdict = (
    strategy: Strategy,
    difficulty: Difficulty,
    suggestedRequest: Record<string, unknown> | null,
    why: string,
  ): Recommendation => ({ strategy, difficulty, suggestedRequest, reasons: [why, ...reasons], ...can });

  if (protection.loginWall.detected)
    return verdict('blocked', 'blocked', null, `a login wall: ${protection.loginWall.evidence.join(', ')}`);

  const apiAuthFree = findings.apiAuthRequired === false || (findings.apiAuthRequired === null && api !== null && !api.authHeadersSeen);
  if (api?.apiDetected && apiAuthFree && javascript?.javascriptRequired) {
    return verdict(
      'api',
      'medium',
      { url: api.apiEndpoints[0] },
      `the content comes from ${api.apiEndpoints.length} JSON endpoint(s) that need no credentials`,
    );
  }
  if (can.canUseExtractHtml && !javascript?.javascriptRequired) {
    return verdict(
      'extract_html',
      protectedSite ? 'medium' : 'easy',
      { url: findings.url, format: 'markdown', ...(protectedSite ? { retry_on_block: true } : {}) },
      'the simple fetch delivered the content; no JavaScript needed',
    );
  }
  if (can.canUseSimpleRequest && javascript !== null && !javascript.javascriptRequired) {
    // Static HTML without blocks is extract_html by the spec's definition; only its markdown failed.
    return verdict(
      'extract_html',
      protectedSite ? 'medium' : 'easy',
      { url: findings.url, format: 'html', ...(protectedSite ? { retry_on_block: true } : {}) },
      `the simple fetch delivered the page and no JavaScript is needed, but its main content did not convert to markdown (${tests.extract_html?.error ?? 'not tested'}): ask for html`,
    );
  }
  const browserRequest = (): Record<string, unknown> => ({
    url: findings.url,
    browser: true,
    browser_type: protectedSite ? 'heavy' : 'light',
    ...(javascript?.appearedSelector
      ? { actions: [{ type: 'wait-for-selector', selector: javascript.appearedSelector, time: 10_000 }] }
      : {}),
    ...(challenged ? { retry_on_block: true } : {}),
  });
  if (can.canUseBrowser) {
    const why = javascript?.javascriptRequired
      ? `the content is rendered by JavaScript (browser confidence ${javascript.browserConfidence})`
      : 'only the browser got past the site';
    return verdict('browser', challenged ? 'hard' : 'medium', browserRequest(), why);
  }
  if (tests.browser === undefined && javascript?.javascriptRequired && !challenged && !protection.captchaDetected) {
    return verdict(
      'browser',
      'medium',
      browserRequest(),
      'the raw HTML is an empty application shell: its content is rendered by JavaScript (not tested at this depth)',
    );
  }
  const blockers = [
    protection.captchaDetected ? `a CAPTCHA (${protection.captchaProviders.join(', ')})` : '',
    ['challenge', 'interactive', 'block'].includes(protection.cloudflareLevel) ? `Cloudflare ${protection.cloudflareLevel}` : '',
    challenged ? `refused by ${protection.vendorsChallenging.join(', ')}` : '',
  ].filter(Boolean);
  const untested =
    tests.browser === undefined &&
    challenged &&
    !protection.captchaDetected &&
    !['interactive', 'block'].includes(protection.cloudflareLevel);
  if (untested) reasons.unshift('a JavaScript challenge without a CAPTCHA: depth standard or full tests whether a browser gets past it');
  return verdict('blocked', 'blocked', null, blockers.length > 0 ? blockers.join('; ') : 'no mode delivered the content');
}
