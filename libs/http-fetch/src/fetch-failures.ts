import type { FETCH_ERROR_TYPES } from '@lib/contracts';

/**
 * Why a fetch produced no response, as types: guidance and retry policy are chosen by
 * `instanceof` / `errorType`, never by matching messages. Infrastructure failures are never
 * charged (spec section 7).
 */
export type FetchErrorType = (typeof FETCH_ERROR_TYPES)[number];

export abstract class FetchFailure extends Error {
  abstract readonly errorType: FetchErrorType;
  /** Whether trying again (perhaps through another proxy) can help. */
  abstract readonly retryable: boolean;
  constructor(
    message: string,
    /** Timings measured up to the failure (spec 2.7: always present, even on errors). */
    readonly timings: Record<string, number> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class DnsFailure extends FetchFailure {
  readonly errorType = 'dns_error';
  readonly retryable = false;
}
export class ConnectionFailure extends FetchFailure {
  readonly errorType = 'connection_error';
  readonly retryable = true;
}
export class FetchTimeout extends FetchFailure {
  readonly errorType = 'timeout';
  readonly retryable = true;
}
export class ProxyFailure extends FetchFailure {
  readonly errorType = 'proxy_error';
  readonly retryable = true;
}
export class TlsFailure extends FetchFailure {
  readonly errorType = 'tls_error';
  readonly retryable = false;
}
export class TooManyRedirects extends FetchFailure {
  readonly errorType = 'too_many_redirects';
  readonly retryable = false;
}
export class BodyTooLarge extends FetchFailure {
  readonly errorType = 'body_too_large';
  readonly retryable = false;
}
/** A redirect pointed at a non-public target (the first URL itself is vetted before fetching). */
export class RedirectBlocked extends FetchFailure {
  readonly errorType = 'target_blocked';
  readonly retryable = false;
  constructor(
    message: string,
    readonly reason: string,
    timings: Record<string, number> = {},
  ) {
    super(message, timings);
  }
}
/** The body's Content-Encoding is unknown, or its data is not what the header says (as a browser's ERR_CONTENT_DECODING_FAILED). */
export class UndecodableBody extends FetchFailure {
  readonly errorType = 'fetch_error';
  readonly retryable = false;
}
export class UnclassifiedFetchFailure extends FetchFailure {
  readonly errorType = 'fetch_error';
  readonly retryable = true;
}
