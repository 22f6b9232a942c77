import type { JobResultBody, JobResultReply, Packed, ValidationProblem } from '@lib/contracts';
import { AppError } from '@lib/errors';

export class ClientAlreadyExistsError extends AppError {
  readonly code = 'gateway.client_exists';
}

export class UnknownClientError extends AppError {
  readonly code = 'gateway.unknown_client';
}

export type { ValidationProblem };

/** Request fields failed validation; carries every problem at once. */
export class RequestValidationError extends AppError {
  readonly code = 'request.validation_failed';
  /** 422 by default; collection bodies answer 400 (spec 4.3), in the same body shape. */
  constructor(
    readonly problems: ValidationProblem[],
    readonly status: 400 | 422 = 422,
  ) {
    super(problems.map((p) => `${p.loc.join('.')}: ${p.msg}`).join('; '));
  }
}

/** The body is declared as JSON but does not parse (or is empty). */
export class InvalidJsonBodyError extends AppError {
  readonly code = 'request.invalid_json';
}

/** use_proxy names a country this client has no approval for (spec 4.2 rule 4). */
export class CountryProxyNotApprovedError extends AppError {
  readonly code = 'proxy.country_not_approved';
}

/** The job result is unavailable: 404 with the object `detail` of spec 4.5 (error_code, message, completed_at, age_hours). */
export class JobResultUnavailableError extends AppError {
  readonly code = 'results.unavailable';
  constructor(readonly detail: { error_code: string; message: string; completed_at: string | null; age_hours: number | null }) {
    super(detail.message);
  }

  /** The found result's packed body, or this error with result-store's reason (both job result routes). */
  static unlessFound(reply: JobResultReply): Packed<JobResultBody> {
    if (reply.found) return reply.result;
    const { error_code, message, completed_at, age_hours } = reply;
    throw new JobResultUnavailableError({ error_code, message, completed_at, age_hours });
  }
}

/** The client's plan lacks a feature the route needs (e.g. country_proxies on the demo plan). */
export class FeatureNotAvailableError extends AppError {
  readonly code = 'auth.feature_missing';
}

/** An upload past DOCUMENT_MAX_BYTES (POST /v1/documents/convert): refused at its Content-Length, or as it streams. */
export class UploadTooLargeError extends AppError {
  readonly code = 'document.too_large';
}

/** A body POST /v1/documents/convert cannot take: not a document type, or no file in the form. */
export class UnsupportedUploadError extends AppError {
  readonly code = 'document.unsupported';
}

/** GET /v1/read answering text (decision 0042): the page has no text; what the scrape was charged stands. */
export class EmptyContentError extends AppError {
  readonly code = 'content.empty';
}

/** GET /v1/read answering text: the target sent a binary body (a file), which has no text to read there. */
export class UnsupportedContentTypeError extends AppError {
  readonly code = 'content.unsupported_type';
}

/** GET /v1/read answering text: guidance found a block page, which is never returned as if it were the page. */
export class BlockedContentError extends AppError {
  readonly code = 'content.blocked';
}

/** The error a read answering text raises for why there is nothing to read. */
export function noContentToReadError(reason: 'empty_content' | 'unsupported_content_type' | 'blocked', message: string): AppError {
  if (reason === 'unsupported_content_type') return new UnsupportedContentTypeError(message);
  return reason === 'blocked' ? new BlockedContentError(message) : new EmptyContentError(message);
}
