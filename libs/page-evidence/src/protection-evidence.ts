import { gateEvidenceOf, locateContent, withNoscriptAsMarkup } from './content-location';
import { markerLookupOf, matchSignatures, type ObservedPage, titleOf, visibleTextOf } from './page-text';
import {
  BLOCK_STATUSES,
  CAPTCHA_PROVIDERS,
  CLOUDFLARE_BLOCK_CODES,
  CLOUDFLARE_BLOCK_MARKERS,
  LOGIN_WALL,
  PROTECTION_PROVIDERS,
  SMALL_PAGE_TEXT,
  VENDOR_CHALLENGES,
} from './protection-rules';

/**
 * How far Cloudflare stands between a client and the page: `none` (not served by it), `present`
 * (served by it, no challenge), `challenge` (a JavaScript or managed challenge), `interactive`
 * (Turnstile or a CAPTCHA to solve), `block` (a firewall refusal: errors 1006–1020).
 */
export const CLOUDFLARE_LEVELS = ['none', 'present', 'challenge', 'interactive', 'block'] as const;
export type CloudflareLevel = (typeof CLOUDFLARE_LEVELS)[number];

export interface LoginWall {
  detected: boolean;
  /** What showed it: `status:401 www-authenticate:basic`, `redirect:/login`, `paywall:…`, `password-form`. */
  evidence: string[];
}

export interface ProtectionEvidence {
  /** Anti-bot vendors whose presence the answer shows (header, cookie, sensor script). */
  vendorsPresent: string[];
  /** Of those (and any other), the vendors that challenged or refused this request. */
  vendorsChallenging: string[];
  cloudflareLevel: CloudflareLevel;
  /** A CAPTCHA stands in front of the content (not merely a widget somewhere on a full page). */
  captchaDetected: boolean;
  captchaProviders: string[];
  loginWall: LoginWall;
  /** Every rule that fired, for reasons a person can read. */
  ruleHits: string[];
}

/**
 * What one answer (status, headers, body, and where it redirected) shows about the site's
 * protection. A vendor's sensor script on a full page is presence, not a block: only its challenge
 * markers, challenge headers or a refusal status on a thin page count as challenging.
 */
export function assessProtection(page: ObservedPage & { location?: string | null; finalUrl?: string | null }): ProtectionEvidence {
  const hits: string[] = [];
  const html = page.body ?? '';
  const lower = html.toLowerCase();
  // What a client without JavaScript reads: a page serving its posts in noscript is not thin.
  const location = html ? locateContent(html) : null;
  const readable = location?.readableText ?? 0;
  let smallText: string | null = null;
  const readableLowerText = () =>
    (smallText ??= visibleTextOf(location?.noscriptIsContent ? withNoscriptAsMarkup(html) : html).toLowerCase());
  const title = html ? titleOf(html) : '';
  const thin = readable < SMALL_PAGE_TEXT;
  const refused = BLOCK_STATUSES.includes(page.statusCode) || page.statusCode === 503;
  // The page is the challenge (not a widget or a sensor beside its content), as the content validator reads it.
  const gate = gateEvidenceOf({ statusCode: page.statusCode, title, readableText: readable, smallText: readableLowerText });

  const contains = markerLookupOf(lower);
  const vendorsPresent = matchSignatures(PROTECTION_PROVIDERS, contains, page.headers, hits, 'present');
  const captchaProviders = matchSignatures(CAPTCHA_PROVIDERS, contains, page.headers, hits, 'captcha');
  const challenging = new Set<string>();
  for (const vendor of VENDOR_CHALLENGES) {
    const marker = vendor.markers.find((m) => lower.includes(m));
    const header = Object.entries(vendor.headers ?? {}).find(([name, values]) => {
      const value = [page.headers[name]].flat().join(' ').toLowerCase();
      return page.headers[name] !== undefined && values.some((v) => value.includes(v));
    });
    // A challenge marker on a content page (a sensor that also ships a challenge string) is not enough.
    if (header || (marker && (gate || refused))) {
      challenging.add(vendor.name);
      hits.push(`challenge:${vendor.name}:${header ? `header:${header[0]}` : `marker:${marker}`}`);
    }
  }
  // A present vendor answering a refusal status with a thin page refused this request.
  for (const vendor of vendorsPresent) {
    if (refused && thin && !challenging.has(vendor)) {
      challenging.add(vendor);
      hits.push(`challenge:${vendor}:status:${page.statusCode}`);
    }
  }
  const captchaDetected = captchaProviders.length > 0 && (gate !== null || refused || challenging.size > 0);
  if (captchaDetected) hits.push(`captcha:gate:${captchaProviders.join(',')}${gate ? `:${gate}` : ''}`);

  const cloudflareLevel = cloudflareLevelOf(vendorsPresent, challenging, captchaProviders, captchaDetected, lower, page.statusCode, hits);
  const loginWall = loginWallOf(page, lower, thin, hits);
  return {
    vendorsPresent,
    vendorsChallenging: [...challenging],
    cloudflareLevel,
    captchaDetected,
    captchaProviders,
    loginWall,
    ruleHits: hits,
  };
}

function cloudflareLevelOf(
  present: string[],
  challenging: Set<string>,
  captchas: string[],
  captchaDetected: boolean,
  lower: string,
  status: number,
  hits: string[],
): CloudflareLevel {
  if (!present.includes('cloudflare') && !challenging.has('cloudflare')) return 'none';
  const code = CLOUDFLARE_BLOCK_CODES.find((c) =>
    new RegExp(`error(?:\\s|&nbsp;)*(?:code)?:?\\s*${c}\\b|cf-error-code">${c}<`).test(lower),
  );
  if (code || (status >= 400 && CLOUDFLARE_BLOCK_MARKERS.some((m) => lower.includes(m)))) {
    hits.push(`cloudflare:block${code ? `:${code}` : ''}`);
    return 'block';
  }
  if (captchas.includes('turnstile') || (challenging.has('cloudflare') && captchaDetected)) {
    hits.push('cloudflare:interactive');
    return 'interactive';
  }
  if (challenging.has('cloudflare')) return 'challenge';
  return 'present';
}

function loginWallOf(
  page: ObservedPage & { location?: string | null; finalUrl?: string | null },
  lower: string,
  thin: boolean,
  hits: string[],
): LoginWall {
  const evidence: string[] = [];
  const authenticate = [page.headers['www-authenticate']].flat()[0];
  if (page.statusCode === 401)
    evidence.push(`status:401${authenticate ? ` www-authenticate:${authenticate.split(/\s/)[0].toLowerCase()}` : ''}`);
  for (const [kind, target] of [
    ['redirect', page.location],
    ['url', page.finalUrl],
  ] as const) {
    if (!target) continue;
    const path = pathOf(target);
    if (LOGIN_WALL.paths.test(path)) evidence.push(`${kind}:${path.slice(0, 120)}`);
  }
  // On a thin page only: a metered paywall ships the whole article with the same markers.
  const paywall = LOGIN_WALL.paywall.find((m) => lower.includes(m));
  if (thin && paywall) evidence.push(`paywall:${paywall}`);
  if (thin && LOGIN_WALL.passwordField.test(lower)) evidence.push('password-form');
  evidence.forEach((e) => hits.push(`login:${e}`));
  return { detected: evidence.length > 0, evidence };
}

function pathOf(target: string): string {
  try {
    const url = new URL(target, 'http://relative.invalid');
    return `${url.pathname}${url.search}`;
  } catch {
    return target;
  }
}
