/**
 * The one table from domain error codes (AppError.code, stable across the transport) to HTTP
 * status and the public snake_case `error_code` of the contract's error body. Codes not listed
 * here are bugs in classification and surface as 500 internal_error (and are logged).
 */
export interface HttpErrorMapping {
  status: number;
  errorCode: string;
}

export const HTTP_ERROR_TABLE = {
  'auth.missing_token': { status: 401, errorCode: 'missing_token' },
  'auth.invalid_token': { status: 401, errorCode: 'invalid_token' },
  'auth.admin_only': { status: 403, errorCode: 'admin_only' },
  'limits.rate_limited': { status: 429, errorCode: 'rate_limit_exceeded' },
  'limits.quota_exceeded': { status: 429, errorCode: 'quota_exceeded' },
  'request.invalid': { status: 400, errorCode: 'invalid_request' },
  'request.invalid_json': { status: 400, errorCode: 'invalid_json' },
  'request.validation_failed': { status: 422, errorCode: 'validation_error' },
  // SSRF guard (libs/target-guard): spec section 7 puts non-public targets under 422.
  'target.blocked': { status: 422, errorCode: 'target_blocked' },
  // The same guard, when the text is no http(s) URL at all ("not a url", "ftp://…"): malformed, not blocked.
  'target.invalid_url': { status: 422, errorCode: 'invalid_url' },
  'scrape.invalid_request': { status: 422, errorCode: 'invalid_scrape_request' },
  // Fair browser capacity: past the client's plan share 429, every slot busy with others 503; both with Retry-After.
  'scrape.browser_share_exceeded': { status: 429, errorCode: 'browser_concurrency_exceeded' },
  'scrape.browser_capacity_exhausted': { status: 503, errorCode: 'browser_capacity_exhausted' },
  'proxy.country_not_approved': { status: 403, errorCode: 'country_not_approved' },
  'auth.feature_missing': { status: 403, errorCode: 'feature_not_available' },
  'proxy.unknown_country': { status: 422, errorCode: 'unknown_country' },
  'proxy.request_not_found': { status: 404, errorCode: 'proxy_request_not_found' },
  'proxy.pool_missing': { status: 503, errorCode: 'proxy_pool_unavailable' },
  // No handler raises it: the router's answer to a path it cannot route (declared on routes with path parameters).
  'resource.not_found': { status: 404, errorCode: 'not_found' },
  'gateway.client_exists': { status: 409, errorCode: 'client_exists' },
  'gateway.unknown_client': { status: 404, errorCode: 'client_not_found' },
  'billing.reservation_not_found': { status: 409, errorCode: 'reservation_not_found' },
  'collection.not_found': { status: 404, errorCode: 'collection_not_found' },
  'collection.empty': { status: 404, errorCode: 'collection_empty' },
  'collection.invalid': { status: 400, errorCode: 'invalid_collection' },
  'run.not_found': { status: 404, errorCode: 'run_not_found' },
  'run.invalid_state': { status: 409, errorCode: 'invalid_state' },
  'project.not_found': { status: 404, errorCode: 'project_not_found' },
  'project.invalid': { status: 422, errorCode: 'invalid_project' },
  'project.invalid_cursor': { status: 400, errorCode: 'invalid_cursor' },
  // spec 4.8's project batches: the one place the engine's word for a run is the client's.
  'batch.not_found': { status: 404, errorCode: 'batch_not_found' },
  'batch.invalid': { status: 400, errorCode: 'invalid_batch' },
  // result-store's listings and stored results.
  'results.unavailable': { status: 404, errorCode: 'result_unavailable' },
  'results.invalid_cursor': { status: 400, errorCode: 'invalid_cursor' },
  'results.run_not_found': { status: 404, errorCode: 'run_not_found' },
  'results.project_not_found': { status: 404, errorCode: 'project_not_found' },
  'results.batch_not_found': { status: 404, errorCode: 'batch_not_found' },
  'viability.run_not_found': { status: 404, errorCode: 'viability_run_not_found' },
  'viability.invalid_cursor': { status: 400, errorCode: 'invalid_cursor' },
  'discovery.invalid_pattern': { status: 400, errorCode: 'invalid_pattern' },
  'discovery.robots_override_refused': { status: 403, errorCode: 'robots_override_not_allowed' },
  'discovery.crawl_not_found': { status: 404, errorCode: 'crawl_not_found' },
  'discovery.invalid_crawl': { status: 422, errorCode: 'invalid_crawl' },
  'discovery.invalid_state': { status: 409, errorCode: 'invalid_state' },
  // Monitors (decision 0038): the plan's count of monitors is a 403 like a missing feature; its
  // interval and URL limits are validation problems at their field (422).
  'monitor.not_found': { status: 404, errorCode: 'monitor_not_found' },
  'monitor.limit_reached': { status: 403, errorCode: 'monitor_limit_reached' },
  // Documents (decision 0039): an upload that is not one 415, past the size or a cap of its kind 413, unreadable 422.
  'document.unsupported': { status: 415, errorCode: 'unsupported_document' },
  'document.too_large': { status: 413, errorCode: 'document_too_large' },
  'document.encrypted': { status: 422, errorCode: 'document_encrypted' },
  'document.corrupt': { status: 422, errorCode: 'document_corrupt' },
  // GET /v1/read (decision 0042): a page with nothing to read is a typed answer, never an empty body.
  'content.empty': { status: 422, errorCode: 'empty_content' },
  'content.unsupported_type': { status: 415, errorCode: 'unsupported_content_type' },
  'content.blocked': { status: 422, errorCode: 'blocked' },
  'idempotency.invalid_key': { status: 400, errorCode: 'invalid_idempotency_key' },
  'idempotency.key_reused': { status: 422, errorCode: 'idempotency_key_reused' },
  'idempotency.in_flight': { status: 409, errorCode: 'idempotency_key_in_flight' },
  'webhook.not_found': { status: 404, errorCode: 'webhook_not_found' },
  'webhook.delivery_in_progress': { status: 409, errorCode: 'delivery_in_progress' },
  'webhook.invalid_cursor': { status: 400, errorCode: 'invalid_cursor' },
  'transport.timeout': { status: 504, errorCode: 'upstream_timeout' },
  'transport.unavailable': { status: 503, errorCode: 'service_unavailable' },
  'transport.worker_lost': { status: 503, errorCode: 'scrape_engine_lost' },
  'transport.invalid_message': { status: 500, errorCode: 'internal_error' },
  'internal.unexpected': { status: 500, errorCode: 'internal_error' },
} as const satisfies Readonly<Record<string, HttpErrorMapping>>;

/** A domain error code the table knows: what an operation declares it can answer (see openapi/). */
export type DomainErrorCode = keyof typeof HTTP_ERROR_TABLE;

export const INTERNAL_ERROR: HttpErrorMapping = { status: 500, errorCode: 'internal_error' };

/**
 * The codes the previous release's services raise for the same errors (decision 0036). During a
 * rolling upgrade this gateway still hears them from processes not yet replaced; each answers
 * as its successor does. Removed in the release after the one that renamed them.
 */
export const FORMER_DOMAIN_CODES: Readonly<Record<string, DomainErrorCode>> = {
  'batch.collection_not_found': 'collection.not_found',
  'batch.collection_empty': 'collection.empty',
  'batch.invalid_collection': 'collection.invalid',
  'batch.run_not_found': 'run.not_found',
  'batch.invalid_state': 'run.invalid_state',
  'batch.project_not_found': 'project.not_found',
  'batch.invalid_project': 'project.invalid',
  'batch.invalid_cursor': 'results.invalid_cursor',
  'batch.batch_not_found': 'batch.not_found',
  'batch.invalid_batch': 'batch.invalid',
  'batch.result_unavailable': 'results.unavailable',
};

export function httpMappingOf(code: string): HttpErrorMapping | undefined {
  const current = Object.hasOwn(FORMER_DOMAIN_CODES, code) ? FORMER_DOMAIN_CODES[code] : code;
  return Object.hasOwn(HTTP_ERROR_TABLE, current) ? HTTP_ERROR_TABLE[current as DomainErrorCode] : undefined;
}
