import { AppError } from './app-error';

/** Errors that belong to no single bounded context: transport, auth, limits, validation. */

export class AuthenticationRequiredError extends AppError {
  readonly code = 'auth.missing_token';
}

export class InvalidTokenError extends AppError {
  readonly code = 'auth.invalid_token';
}

export class AdminOnlyError extends AppError {
  readonly code = 'auth.admin_only';
}

export class RateLimitExceededError extends AppError {
  readonly code = 'limits.rate_limited';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, { retry_after_seconds: retryAfterSeconds });
  }
}

export class QuotaExceededError extends AppError {
  readonly code = 'limits.quota_exceeded';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, { retry_after_seconds: retryAfterSeconds });
  }
}

export class BadRequestError extends AppError {
  readonly code = 'request.invalid';
}

/** The peer context did not answer in time (it may be down or overloaded). */
export class TransportTimeoutError extends AppError {
  readonly code = 'transport.timeout';
}

/** A dependency could not be reached at all: a peer context, or the database (unavailableDependencyOf). */
export class DependencyUnavailableError extends AppError {
  readonly code = 'transport.unavailable';
}

/**
 * The context working on a request stopped answering mid-call (its process died): the work may be
 * lost, nothing was charged, and the client may retry at once.
 */
export class WorkerLostError extends AppError {
  readonly code = 'transport.worker_lost';
  constructor(message: string, retryAfterSeconds = 2) {
    super(message, { retry_after_seconds: retryAfterSeconds });
  }
}

/** A message payload failed validation at the receiving context (a contract drift). */
export class InvalidMessageError extends AppError {
  readonly code = 'transport.invalid_message';
}

/** Something failed inside a context that it did not classify. Details stay in its logs. */
export class InternalError extends AppError {
  readonly code = 'internal.unexpected';
}
