import type { ValidationProblem } from '@lib/contracts';
import { AppError, unavailableDependencyOf } from '@lib/errors';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { httpMappingOf } from '../http-errors/error-status.table';
import type { ToolName } from './tool-names';

/** The guidance an agent gets with every failure: what happened, and what to do next. */
export interface ToolFailure {
  error_type: string;
  message: string;
  next_steps: string[];
  suggested_request: Record<string, unknown> | null;
  retry_after_seconds?: number;
  problems?: ValidationProblem[];
}

/**
 * A failure as a tool result (`isError: true`) the model can act on, never a protocol error: the
 * guidance as readable text and as JSON. No structuredContent: it is the success shape, and a
 * client checks it against the output schema.
 */
export function failureResult(failure: ToolFailure): CallToolResult {
  const lines = [`Error (${failure.error_type}): ${failure.message}`];
  if (failure.problems?.length) lines.push('Problems:', ...failure.problems.map((p) => `- ${p.loc.join('.')}: ${p.msg}`));
  if (failure.next_steps.length) lines.push('Next steps:', ...failure.next_steps.map((step) => `- ${step}`));
  if (failure.suggested_request) lines.push(`Suggested arguments: ${JSON.stringify(failure.suggested_request)}`);
  return {
    isError: true,
    content: [
      { type: 'text', text: lines.join('\n') },
      { type: 'text', text: JSON.stringify({ guidance: failure }) },
    ],
  };
}

export function invalidArguments(tool: ToolName, problems: ValidationProblem[]): CallToolResult {
  return failureResult({
    error_type: 'invalid_arguments',
    message: `The arguments of ${tool} are not valid; nothing was fetched or charged.`,
    problems,
    next_steps: ["Fix the arguments listed and call again; the tool list gives each argument's schema."],
    suggested_request: null,
  });
}

// What an agent can do about each refusal the platform answers with, by its stable code.
const NEXT_STEPS: Record<
  string,
  (error: AppError, args: Record<string, unknown>) => Pick<ToolFailure, 'next_steps' | 'suggested_request'>
> = {
  'target.invalid_url': () => ({
    next_steps: ['The url is not an http(s) URL: send an absolute URL with its scheme and host, e.g. https://example.com/page.'],
    suggested_request: null,
  }),
  'target.blocked': () => ({
    next_steps: [
      'Only public http(s) addresses can be fetched: private, loopback, link-local and cloud-metadata addresses are refused, redirects included. Use a public URL.',
    ],
    suggested_request: null,
  }),
  'limits.quota_exceeded': () => ({
    next_steps: [
      'The monthly credit quota cannot cover this call: check_billing shows what is left and when it resets; a cheaper call (browser=false, discover depth=quick) may still fit.',
    ],
    suggested_request: null,
  }),
  'limits.rate_limited': () => ({ next_steps: ['Wait retry_after_seconds, then call again.'], suggested_request: null }),
  'proxy.country_not_approved': (_error, args) => ({
    next_steps: [
      'This country pool is not approved for this client: list_proxy_countries shows the approved ones. use_proxy "any" needs no approval; an approval is asked for with POST /v1/proxy/request-country.',
    ],
    suggested_request: { ...args, use_proxy: 'any' },
  }),
  'proxy.unknown_country': (_error, args) => ({
    next_steps: ['Use a two-letter ISO country code from list_proxy_countries, or "any".'],
    suggested_request: { ...args, use_proxy: 'any' },
  }),
  'proxy.pool_missing': (_error, args) => ({
    next_steps: ['No proxy of that pool is configured on this platform right now; call again without use_proxy, or later.'],
    suggested_request: { ...args, use_proxy: null },
  }),
  'scrape.invalid_request': () => ({ next_steps: ['Fix the request as the message says and call again.'], suggested_request: null }),
  'scrape.browser_share_exceeded': (_error, args) => ({
    next_steps: [
      'This client already has as many browser pages in flight as its plan allows (GET /v1/account: browser_concurrency), or this one waited its turn behind them for the whole queue wait; nothing was charged. Wait retry_after_seconds for one to finish, or send this one with browser=false.',
    ],
    suggested_request: args,
  }),
  'scrape.browser_capacity_exhausted': (_error, args) => ({
    next_steps: ['Every browser page slot is busy with other clients; nothing was charged. Call again after retry_after_seconds.'],
    suggested_request: args,
  }),
  'transport.worker_lost': (_error, args) => ({
    next_steps: ['The scrape engine handling the call stopped; nothing was charged. Call again.'],
    suggested_request: args,
  }),
  'transport.unavailable': () => ({
    next_steps: ['A platform service is unavailable; nothing was charged. health_check tells which; call again in a few seconds.'],
    suggested_request: null,
  }),
  'transport.timeout': () => ({
    next_steps: ['A platform service did not answer in time; nothing was charged. Call again in a few seconds.'],
    suggested_request: null,
  }),
};

/**
 * A domain error of the call as the agent's guidance: error_type is the public error_code the REST
 * API answers with, and the message is the same. Anything unclassified is a bug: it reads as
 * internal_error without its details (the caller logs it).
 */
export function failureOf(thrown: unknown, args: Record<string, unknown>): ToolFailure {
  // An outage reads as one (service_unavailable, retry later), not as internal_error.
  const error = thrown instanceof AppError ? thrown : (unavailableDependencyOf(thrown) ?? thrown);
  const mapping = error instanceof AppError ? httpMappingOf(error.code) : undefined;
  if (error instanceof AppError && mapping && (mapping.status < 500 || NEXT_STEPS[error.code])) {
    const retryAfter =
      typeof error.details?.retry_after_seconds === 'number' ? error.details.retry_after_seconds : mapping.status === 503 ? 5 : undefined;
    const steps = NEXT_STEPS[error.code]?.(error, args) ?? { next_steps: [], suggested_request: null };
    return {
      error_type: mapping.errorCode,
      message: error.message,
      ...steps,
      ...(retryAfter !== undefined ? { retry_after_seconds: retryAfter } : {}),
    };
  }
  return {
    error_type: 'internal_error',
    message: 'The platform failed to handle the call.',
    next_steps: ['Call again; if it keeps failing, health_check tells whether the platform is degraded.'],
    suggested_request: null,
  };
}
