/**
 * One normal form per URL, so a site's pages are listed and fetched once each (decision 0023): the
 * WHATWG parser (scheme and host case, default ports, dot segments, IDNA, percent-encoding of what
 * must be encoded) plus four rules of ours:
 * 1. the fragment is dropped (it never reaches the server);
 * 2. tracking and session parameters are dropped (TRACKING_PARAMETERS, SESSION_PARAMETERS, and a
 *    `;jsessionid=` path parameter), the rest sorted by name (stable, so repeated names keep their
 *    order);
 * 3. percent-encoded unreserved characters (`%7E` → `~`) are decoded and other escapes upper-cased,
 *    as RFC 3986 §6.2.2 says they are equivalent;
 * 4. trailing slash: `/a` and `/a/` are one page (the `key`), but the URL kept is the first spelling
 *    seen, because on the real web only one of the two may be served.
 */
export interface NormalUrl {
  /** The URL to list and fetch. */
  url: string;
  /** What two spellings of one page share (the URL without a trailing slash on a non-root path). */
  key: string;
  host: string;
}

/** utm_* and the click and mail ids of the large ad and mail platforms. */
const TRACKING_PARAMETERS = new Set([
  'fbclid',
  'gclid',
  'gclsrc',
  'dclid',
  'msclkid',
  'yclid',
  'twclid',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_hsenc',
  '_hsmi',
  '_ga',
  '_gl',
  'ref_src',
]);
const SESSION_PARAMETERS = new Set(['sessionid', 'session_id', 'sid', 'jsessionid', 'phpsessid', 'aspsessionid', 'cfid', 'cftoken']);

export function isDroppedParameter(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || TRACKING_PARAMETERS.has(lower) || SESSION_PARAMETERS.has(lower);
}

/** The normal form of `raw` (relative to `base`), or null when it is not an http(s) URL. */
export function normalUrl(raw: string, base?: string | URL): NormalUrl | null {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!url.hostname) return null;
  // Each setter re-serialises the URL: only the ones with something to change are called (10,000
  // sitemap URLs are normalised per map).
  if (url.href.includes('#')) url.hash = ''; // an empty fragment (`…#`) has hash '' but is in href
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
  }
  if (url.pathname.includes('%') || url.pathname.includes(';'))
    url.pathname = canonicalEscapes(url.pathname.replace(/;jsessionid=[^/]*/gi, ''));
  if (url.search) {
    const kept = [...url.searchParams].filter(([name]) => !isDroppedParameter(name));
    kept.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const query = kept.map(([name, value]) => `${encodeQueryPart(name)}=${encodeQueryPart(value)}`).join('&');
    url.search = query;
  }
  const href = url.href.replace(/\?$/, '');
  const path = url.pathname;
  const key = path.length > 1 && path.endsWith('/') ? href.replace(/\/(\?|$)/, '$1') : href;
  return { url: href, key, host: url.hostname };
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * `%7e` → `~`, `%2f` stays escaped as `%2F` (RFC 3986 §6.2.2.1–2). A `%` that starts no escape is
 * written `%25` first: decoding `%%30a` would otherwise make a new escape (`%0a`) that the next
 * pass reads differently, and a normal form must be its own normal form.
 */
export function canonicalEscapes(text: string): string {
  return text.replace(/%(?![0-9a-fA-F]{2})/g, '%25').replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** One query name or value, encoded once: form encoding (`+` for space) as URLSearchParams writes it. */
function encodeQueryPart(value: string): string {
  return canonicalEscapes(new URLSearchParams([['', value]]).toString().slice(1));
}
