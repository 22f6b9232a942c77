import { AppError } from '@lib/errors';

/** An include or exclude pattern that is not a valid glob or RE2 expression: 400. */
export class InvalidScopePatternError extends AppError {
  readonly code = 'discovery.invalid_pattern';
}

/** ignore_robots asked where the operator has not allowed it (IGNORE_ROBOTS_ALLOWED): 403. */
export class RobotsOverrideRefusedError extends AppError {
  readonly code = 'discovery.robots_override_refused';
}

/** No crawl with this id for this client (another client's counts as unknown): 404. */
export class CrawlNotFoundError extends AppError {
  readonly code = 'discovery.crawl_not_found';
}

/** A crawl that cannot scrape a single page within its own bounds (max_credits below one page's price): 422. */
export class InvalidCrawlError extends AppError {
  readonly code = 'discovery.invalid_crawl';
}

/** A lifecycle move the crawl's state does not allow (a dry run has none): 409 with the state. */
export class InvalidCrawlStateError extends AppError {
  readonly code = 'discovery.invalid_state';
}
