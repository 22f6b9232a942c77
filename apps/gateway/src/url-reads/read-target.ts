/**
 * GET /v1/read/{url} (decision 0042): the target URL written in the path, as it was typed, and the
 * read's options among its query parameters.
 *
 * - The target keeps its own query string: a parameter is an option only when its name is one of
 *   READ_OPTIONS; every other parameter stays with the target, in its order and encoding.
 * - A target whose own parameters use an option's name is sent percent-encoded (what the SDKs do):
 *   `/v1/read/https%3A%2F%2Fexample.com%2F%3Fformat%3Dcsv?format=markdown`; then the whole query
 *   string is options.
 * - Proxies that merge slashes turn `https://` into `https:/`: mended. A target without a scheme is
 *   read as https.
 */
export const READ_PATH_PREFIX = '/v1/read/';

/** The scrape options a read takes as query parameters, by the type their text is read as. */
const BOOLEAN_OPTIONS = [
  'only_main_content',
  'include_images',
  'include_metadata',
  'browser',
  'screenshot',
  'retry_on_block',
  'ocr',
  'revalidate',
  'prefer_site_markdown',
  'include_frames',
];
const INTEGER_OPTIONS = ['max_age', 'max_tokens', 'max_pages'];
const TEXT_OPTIONS = ['format', 'browser_type', 'use_proxy', 'language', 'window_size', 'pages', 'custom_id', 'cursor', 'tokenizer'];
export const READ_OPTIONS: readonly string[] = [...BOOLEAN_OPTIONS, ...INTEGER_OPTIONS, ...TEXT_OPTIONS];
/** Each option with the JSON type its text is read as (for the OpenAPI description). */
export const READ_OPTION_TYPES: ReadonlyArray<readonly [string, 'boolean' | 'integer' | 'string']> = [
  ...BOOLEAN_OPTIONS.map((name) => [name, 'boolean'] as const),
  ...INTEGER_OPTIONS.map((name) => [name, 'integer'] as const),
  ...TEXT_OPTIONS.map((name) => [name, 'string'] as const),
];

export interface ReadTarget {
  /** The target URL as the scrape takes it ('' when the path names none). */
  url: string;
  /** The options, typed where their text reads as their type (else left as sent, for the validator to name). */
  options: Record<string, unknown>;
}

/** The target and options of a read from the request's raw URL (path and query, as sent). */
export function readTargetOf(rawUrl: string): ReadTarget {
  const afterPrefix = rawUrl.startsWith(READ_PATH_PREFIX) ? rawUrl.slice(READ_PATH_PREFIX.length) : rawUrl.replace(/^\/v1\/read\/?/, '');
  const queryAt = afterPrefix.indexOf('?');
  const path = queryAt < 0 ? afterPrefix : afterPrefix.slice(0, queryAt);
  const query = queryAt < 0 ? '' : afterPrefix.slice(queryAt + 1);
  const pairs = query === '' ? [] : query.split('&').filter((pair) => pair !== '');
  const options: Record<string, unknown> = {};
  const optionOf = (pair: string) => {
    const equals = pair.indexOf('=');
    const name = decodeOrKeep(equals < 0 ? pair : pair.slice(0, equals));
    return READ_OPTIONS.includes(name)
      ? { name, value: decodeOrKeep((equals < 0 ? '' : pair.slice(equals + 1)).replace(/\+/g, ' ')) }
      : null;
  };
  if (/^https?%3A/i.test(path)) {
    for (const pair of pairs) {
      const option = optionOf(pair);
      if (option) options[option.name] = typed(option.name, option.value);
    }
    return { url: decodeOrKeep(path), options };
  }
  const kept: string[] = [];
  for (const pair of pairs) {
    const option = optionOf(pair);
    if (option) options[option.name] = typed(option.name, option.value);
    else kept.push(pair);
  }
  if (path === '') return { url: '', options };
  const mended = path.replace(/^(https?):\/(?!\/)/i, '$1://');
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(mended) ? mended : `https://${mended}`;
  return { url: kept.length > 0 ? `${withScheme}?${kept.join('&')}` : withScheme, options };
}

function typed(name: string, value: string): unknown {
  if (BOOLEAN_OPTIONS.includes(name))
    return ({ true: true, '1': true, false: false, '0': false } as Record<string, boolean>)[value] ?? value;
  if (INTEGER_OPTIONS.includes(name)) return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  return value;
}

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
