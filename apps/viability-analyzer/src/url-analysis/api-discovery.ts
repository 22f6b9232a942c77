import type { CapturedNetworkRequest } from '@lib/contracts';

/** What a page's own traffic and markup show about a JSON API behind its content. */
export interface ApiDiscovery {
  apiDetected: boolean;
  /** Same-site (or api.* subdomain) JSON endpoints whose responses carry the page's visible content. */
  apiEndpoints: string[];
  /** Data the page ships inline for its scripts (`__NEXT_DATA__`, `__NUXT__`, ld+json, initial state). */
  embeddedData: string[];
  /** An endpoint was called with credentials (Authorization, a token header, or cookies). */
  authHeadersSeen: boolean;
  reasons: string[];
}

const EMBEDDED_DATA: Array<[string, RegExp]> = [
  ['__NEXT_DATA__', /<script[^>]+id=["']__NEXT_DATA__["']/i],
  ['__NUXT__', /window\.__NUXT__\s*=|<script[^>]+id=["']__NUXT_DATA__["']/i],
  ['application/ld+json', /<script[^>]+type=["']application\/ld\+json["']/i],
  ['__INITIAL_STATE__', /window\.__(INITIAL|PRELOADED|APOLLO)_STATE__\s*=/i],
];
const AUTH_HEADERS = ['authorization', 'x-api-key', 'x-auth-token', 'x-csrf-token', 'cookie'];
/** A response must carry this many of the page's distinctive words to count as its content. */
const SHARED_WORDS = 8;

/**
 * Finds the API a page reads its content from: among the xhr/fetch requests the browser captured,
 * JSON answers from the page's own site (or an api. subdomain) that contain words of the page's
 * visible text. Tracking beacons and third-party widgets share no content with the page, so they
 * are not endpoints.
 */
export function discoverApi(pageUrl: string, renderedText: string, rawHtml: string, traffic: CapturedNetworkRequest[]): ApiDiscovery {
  const pageHost = hostOf(pageUrl);
  const words = distinctiveWords(renderedText);
  const reasons: string[] = [];
  const endpoints: string[] = [];
  let authHeadersSeen = false;
  for (const request of traffic) {
    if (request.resource_type !== 'xhr' && request.resource_type !== 'fetch') continue;
    if (request.status < 200 || request.status >= 300 || !/json/i.test(request.mime_type ?? '') || request.body === null) continue;
    const host = hostOf(request.url);
    if (!host || !pageHost || !sameSite(pageHost, host)) continue;
    const body = request.body_encoding === 'base64' ? Buffer.from(request.body, 'base64').toString('utf8') : request.body;
    const shared = countShared(words, body.toLowerCase());
    if (shared < SHARED_WORDS) continue;
    if (!endpoints.includes(request.url)) endpoints.push(request.url);
    const sentAuth = Object.keys(request.request_headers).some((name) => AUTH_HEADERS.includes(name.toLowerCase()));
    authHeadersSeen ||= sentAuth;
    reasons.push(
      `${request.method} ${request.url} answered JSON carrying ${shared} words of the page${sentAuth ? ', sent with credentials' : ''}`,
    );
  }
  const embeddedData = EMBEDDED_DATA.filter(([, pattern]) => pattern.test(rawHtml)).map(([name]) => name);
  if (embeddedData.length > 0) reasons.push(`the HTML embeds data for its scripts: ${embeddedData.join(', ')}`);
  return { apiDetected: endpoints.length > 0, apiEndpoints: endpoints, embeddedData, authHeadersSeen, reasons };
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * The page's own site: its host without www., that host's subdomains (api.example.com), and for a
 * deeper host its parent domain's hosts (shop.example.com → api.example.com). Without a public
 * suffix list, a parent that is itself a suffix (co.uk, com.au) is refused rather than guessed.
 */
function sameSite(pageHost: string, host: string): boolean {
  const base = pageHost.replace(/^www\./, '');
  if (host === base || host.endsWith(`.${base}`)) return true;
  const labels = base.split('.');
  if (labels.length < 3 || /^[\d.]+$/.test(base)) return false;
  const parent = labels.slice(1).join('.');
  if (/^(co|com|org|net|gov|ac|edu)\.[a-z]{2}$/.test(parent)) return false;
  return host === parent || host.endsWith(`.${parent}`);
}

function distinctiveWords(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length >= 6),
  );
}

function countShared(words: Set<string>, body: string): number {
  let shared = 0;
  for (const word of words) if (body.includes(word)) shared += 1;
  return shared;
}
