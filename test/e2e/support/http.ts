import { contractOf } from '../../support/api-contract';

/**
 * A minimal HTTP client for the end-to-end specs (Node's fetch over a real socket). Every response
 * it receives is judged against the OpenAPI document the same service serves: an undeclared
 * status, a body off its schema or a missing required header fails the test that made the call.
 */
export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function http<T = any>(
  baseUrl: string,
  path: string,
  init: { method?: string; token?: string; json?: unknown; body?: string | Uint8Array | FormData; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | Uint8Array | FormData | undefined = init.body;
  if (init.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(init.json);
  }
  const response = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    body: body as BodyInit | undefined,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON; keep the text
  }
  const method = init.method ?? (body !== undefined ? 'POST' : 'GET');
  (await contractOf(baseUrl)).assertConforms({ method, path, status: response.status, headers: response.headers, text });
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export const USAGE_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-quota-limit',
  'x-quota-used',
  'x-quota-remaining',
  'x-credits-charged',
] as const;

/** Asserts the seven headers of spec section 8 are present and well-formed. */
export function expectUsageHeaders(result: HttpResult): void {
  for (const name of USAGE_HEADERS) {
    const value = result.headers.get(name);
    if (value === null || !/^\d+$/.test(value))
      throw new Error(`${name} missing or not an integer on a ${result.status} response: ${value}`);
  }
  const reset = Number(result.headers.get('x-ratelimit-reset'));
  const now = Date.now() / 1000;
  if (reset < now - 1 || reset > now + 61)
    throw new Error(`x-ratelimit-reset ${reset} is not a Unix timestamp within the next minute (now ${now})`);
}
