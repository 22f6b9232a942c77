/**
 * Why a browser scrape produced no page, as types (like the simple fetcher's FetchFailure):
 * guidance and charging go by `errorType`. None of these is charged — the site never answered.
 */
export type BrowserErrorType =
  | 'browser_unavailable'
  | 'browser_busy'
  | 'browser_error'
  | 'timeout'
  | 'proxy_error'
  | 'connection_error'
  | 'dns_error'
  | 'tls_error'
  | 'too_many_redirects'
  | 'body_too_large'
  | 'fetch_error'
  | 'target_blocked';

export class BrowserFailure extends Error {
  constructor(
    readonly errorType: BrowserErrorType,
    message: string,
    /** Whether another attempt through another proxy can help. */
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'BrowserFailure';
  }
}

/**
 * Chromium's network errors (`net::ERR_…`, net/base/net_error_list.h) as the error types simple
 * mode reports for the same cause, so a redirect loop or a bad certificate reads the same whichever
 * mode met it. The first pattern that matches wins; a `net::ERR_` none names is a connection error.
 */
const NET_ERRORS: ReadonlyArray<{ pattern: RegExp; errorType: BrowserErrorType; retryable: boolean; says: string }> = [
  { pattern: /ERR_TOO_MANY_REDIRECTS/, errorType: 'too_many_redirects', retryable: false, says: 'The page redirects in a loop' },
  {
    pattern: /ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED/,
    errorType: 'dns_error',
    retryable: false,
    says: 'The host name does not resolve',
  },
  {
    pattern: /ERR_CERT_|ERR_SSL_|ERR_BAD_SSL_CLIENT_AUTH_CERT|ERR_CERTIFICATE_TRANSPARENCY/,
    errorType: 'tls_error',
    retryable: false,
    says: 'TLS failed',
  },
  { pattern: /ERR_TIMED_OUT|ERR_CONNECTION_TIMED_OUT/, errorType: 'timeout', retryable: true, says: 'The site did not answer in time' },
  {
    pattern:
      /ERR_CONTENT_DECODING_FAILED|ERR_CONTENT_LENGTH_MISMATCH|ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_INVALID_RESPONSE|ERR_RESPONSE_HEADERS_TOO_BIG|ERR_INVALID_HTTP_RESPONSE/,
    errorType: 'fetch_error',
    retryable: false,
    says: 'The site sent a response the browser could not read',
  },
];

/** The error type of a Chromium network error, or null for a message that names none. */
export function netErrorFailure(message: string): BrowserFailure | null {
  if (!/net::ERR_/.test(message)) return null;
  const known = NET_ERRORS.find((entry) => entry.pattern.test(message));
  if (known) return new BrowserFailure(known.errorType, `${known.says} (${message}).`, known.retryable);
  return new BrowserFailure('connection_error', `The page could not be loaded (${message}).`, true);
}

/** A Chromium/DevTools error that means the browser or the page's renderer went away. */
export function isBrowserGone(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Target closed|Session closed|Connection closed|Protocol error.*(closed|crash)|Navigating frame was detached|browser has disconnected|Page crashed|detached Frame/i.test(
    message,
  );
}

/** The first line of an error's message: Chromium and DevTools errors carry stacks and call logs. */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}

/** `work`, or `late()` thrown after `ms` — the work itself goes on (and its failure is ignored). */
export function withinDeadline<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
