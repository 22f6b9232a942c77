import { AppError } from '@lib/errors';

export class InvalidScrapeRequestError extends AppError {
  readonly code = 'scrape.invalid_request';
}

/** A country (or "any") proxy was asked for but PROXY_POOL has no proxy for it. */
export class ProxyPoolMissingError extends AppError {
  readonly code = 'proxy.pool_missing';
}

/**
 * A sync browser scrape past the client's plan on a worker (its browser pages rendering or
 * waiting at once), refused at once; or one within it that waited the whole queue timeout for one
 * of its own client's pages to end.
 */
export class BrowserShareExceededError extends AppError {
  readonly code = 'scrape.browser_share_exceeded';
  constructor(message: string, retryAfterSeconds: number) {
    super(message, { retry_after_seconds: retryAfterSeconds });
  }
}

/** Every browser page slot stayed busy with other clients' pages for the whole wait. */
export class BrowserCapacityExhaustedError extends AppError {
  readonly code = 'scrape.browser_capacity_exhausted';
  constructor(message: string, retryAfterSeconds: number) {
    super(message, { retry_after_seconds: retryAfterSeconds });
  }
}

/** An uploaded file is not a document this service reads (POST /v1/documents/convert). */
export class UnsupportedDocumentError extends AppError {
  readonly code = 'document.unsupported';
}

/** An uploaded document that cannot be read, by why: its password, its damage, or past a cap of its kind. */
export class DocumentEncryptedError extends AppError {
  readonly code = 'document.encrypted';
}
export class DocumentCorruptError extends AppError {
  readonly code = 'document.corrupt';
}
export class DocumentTooLargeError extends AppError {
  readonly code = 'document.too_large';
}
