import createClient, { type Middleware } from 'openapi-fetch';
// The types generated from the gateway's own OpenAPI document (npm run build regenerates them and
// CI fails on drift), so every path, parameter and body the console sends is checked against the API.
import type { components, paths } from '../../../../sdk/src/generated/api';
import { sessionToken } from '../session/session-token';

export type Schemas = components['schemas'];
/** A collection's item (the page cache's max_age and revalidate included). */
export type ScrapeRequest = Schemas['SyncScrapeRequest'];
export type ScrapeResult = Schemas['ScrapeResultBody'];

/** One problem of a 422 answer: where (body, query or path, then the field path) and what. */
export interface FieldProblem {
  loc: Array<string | number>;
  msg: string;
}

/** A non-2xx answer in the contract's error body: `detail` (a message, or 422's problems) and `error_code`. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string | null,
    message: string,
    readonly fields: FieldProblem[],
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
  }

  /** The problems at one field path (without the leading body/query/path). */
  at(...fieldPath: Array<string | number>): string[] {
    return this.fields
      .filter((p) => fieldPath.every((part, i) => p.loc[i + 1] === part) && p.loc.length === fieldPath.length + 1)
      .map((p) => p.msg);
  }

  /** Problems at this path or below it, e.g. every problem of actions[2]. */
  under(...fieldPath: Array<string | number>): FieldProblem[] {
    return this.fields.filter((p) => fieldPath.every((part, i) => p.loc[i + 1] === part));
  }
}

/** What the last answer's headers said about the rate limit and the monthly quota (spec 8). */
export interface UsageHeaders {
  rateLimit: number | null;
  rateRemaining: number | null;
  rateReset: number | null;
  quotaLimit: number | null;
  quotaUsed: number | null;
  quotaRemaining: number | null;
  creditsCharged: number | null;
}

type UsageListener = (usage: UsageHeaders) => void;
const usageListeners = new Set<UsageListener>();
export let lastUsage: UsageHeaders | null = null;

export function onUsageHeaders(listener: UsageListener): () => void {
  usageListeners.add(listener);
  return () => usageListeners.delete(listener);
}

function numberHeader(response: Response, name: string): number | null {
  const raw = response.headers.get(name);
  if (raw === null || raw.trim() === '') return null;
  const value = Number(raw);
  return Number.isFinite(value) ? value : null;
}

const sessionAuth: Middleware = {
  onRequest({ request }) {
    const token = sessionToken.read();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ response }) {
    if (response.headers.has('x-ratelimit-limit')) {
      lastUsage = {
        rateLimit: numberHeader(response, 'x-ratelimit-limit'),
        rateRemaining: numberHeader(response, 'x-ratelimit-remaining'),
        rateReset: numberHeader(response, 'x-ratelimit-reset'),
        quotaLimit: numberHeader(response, 'x-quota-limit'),
        quotaUsed: numberHeader(response, 'x-quota-used'),
        quotaRemaining: numberHeader(response, 'x-quota-remaining'),
        creditsCharged: numberHeader(response, 'x-credits-charged'),
      };
      for (const listener of usageListeners) listener(lastUsage);
    }
    return response;
  },
};

/** The typed client of the public API, on the gateway that served the console (same origin, no CORS). */
export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(sessionAuth);

const URL_ERROR_CODES = new Set(['target_blocked', 'invalid_url', 'bad_url']);

/** The error body of any non-2xx answer as an ApiProblem (the body may also be empty or not JSON). */
export function problemOf(response: Response, body: unknown): ApiProblem {
  const retryAfter = numberHeader(response, 'retry-after');
  const record = (typeof body === 'object' && body !== null ? body : {}) as { detail?: unknown; error_code?: unknown };
  const code = typeof record.error_code === 'string' ? record.error_code : null;
  if (Array.isArray(record.detail)) {
    const fields = record.detail.filter(
      (p): p is FieldProblem =>
        typeof p === 'object' && p !== null && Array.isArray((p as FieldProblem).loc) && typeof (p as FieldProblem).msg === 'string',
    );
    const summary = fields.map((p) => `${p.loc.slice(1).join('.') || p.loc.join('.')}: ${p.msg}`).join('; ');
    return new ApiProblem(response.status, code ?? 'validation_error', summary || 'The request is not valid.', fields, retryAfter);
  }
  const detail = typeof record.detail === 'string' ? record.detail : `The API answered ${response.status} ${response.statusText}.`;
  // A refused target (malformed, private, blocked) is about the url field: shown there.
  const fields = code !== null && URL_ERROR_CODES.has(code) ? [{ loc: ['body', 'url'], msg: detail }] : [];
  return new ApiProblem(response.status, code, detail, fields, retryAfter);
}

/** Unwraps an openapi-fetch answer: the data, or an ApiProblem thrown. */
export async function answer<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (error) {
    throw new ApiProblem(0, 'network_error', `The gateway could not be reached: ${(error as Error).message}`, [], null);
  }
  if (!result.response.ok) throw problemOf(result.response, result.error);
  return result.data as T;
}
