import { AppError } from '@lib/errors';

export class InvalidScrapeRequestError extends AppError {
  readonly code = 'scrape.invalid_request';
}

/** A country (or "any") proxy was asked for but PROXY_POOL has no proxy for it. */
export class ProxyPoolMissingError extends AppError {
  readonly code = 'proxy.pool_missing';
}
