import { createHash } from 'node:crypto';
import { PAGE_CACHE_FIELDS, proxyNameOf, ScrapeRequest } from '@lib/contracts';
import { normalUrl } from '@lib/url-normal-form';
import { plainToInstance } from 'class-transformer';
import { configure } from 'safe-stable-stringify';

// Object keys in a stable order (arrays keep theirs): two requests that differ only in the order
// their client wrote headers, cookies or an action's fields are one request.
const canonicalJson = configure({ deterministic: true, bigint: false, circularValue: Error });

/** Bumped when what the key covers changes, so no entry written under the old meaning is served. */
const KEY_VERSION = 1;

/**
 * The page cache's key of a request: SHA-256 of everything that changes its result, and nothing
 * that does not. The URL in its normal form (scheme and host case, default port, fragment,
 * tracking and session parameters, parameter order: decision 0023), every option of the request
 * with its defaults filled, header names in lower case, the proxy pool but not its retry
 * settings. Left out: custom_id (a label), max_age and revalidate (how the cache is asked), and
 * the retry settings of use_proxy (how hard, not what). The trailing slash stays: on the real web
 * `/a` and `/a/` can be different pages.
 */
export function pageCacheKey(plain: Record<string, unknown>): { key: string; url: string } {
  const cacheless = Object.fromEntries(Object.entries(plain).filter(([name]) => !(PAGE_CACHE_FIELDS as readonly string[]).includes(name)));
  const request = plainToInstance(ScrapeRequest, cacheless);
  const url = normalUrl(request.url)?.url ?? request.url;
  const proxy = proxyNameOf(request.use_proxy);
  const covered = {
    v: KEY_VERSION,
    url,
    format: request.format,
    only_main_content: request.only_main_content,
    include_images: request.include_images,
    include_metadata: request.include_metadata,
    browser: request.browser,
    browser_type: request.browser ? request.browser_type : null,
    proxy: proxy === null ? null : proxy.toLowerCase(),
    screenshot: request.screenshot,
    actions: request.actions ?? null,
    extract: request.extract ?? null,
    headers: lowerCaseNames(request.headers),
    cookies: request.cookies ?? null,
    language: request.language.toLowerCase(),
    window_size: request.window_size,
    http_method: request.http_method ?? null,
    network_capture: request.network_capture ?? null,
    retry_on_block: request.retry_on_block,
  };
  return {
    key: createHash('sha256')
      .update(canonicalJson(covered) ?? '')
      .digest('hex'),
    url,
  };
}

function lowerCaseNames(headers: Record<string, string> | null | undefined): Record<string, string> | null {
  if (!headers) return null;
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
