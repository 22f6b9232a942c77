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
  'batch.collection_not_found': { status: 404, errorCode: 'collection_not_found' },
  'batch.collection_empty': { status: 404, errorCode: 'collection_empty' },
  'batch.run_not_found': { status: 404, errorCode: 'run_not_found' },
  'batch.invalid_collection': { status: 400, errorCode: 'invalid_collection' },
  'batch.result_unavailable': { status: 404, errorCode: 'result_unavailable' },
  'batch.invalid_cursor': { status: 400, errorCode: 'invalid_cursor' },
  'batch.project_not_found': { status: 404, errorCode: 'project_not_found' },
  'batch.batch_not_found': { status: 404, errorCode: 'batch_not_found' },
  'batch.invalid_state': { status: 409, errorCode: 'invalid_state' },
  'batch.invalid_project': { status: 422, errorCode: 'invalid_project' },
  'batch.invalid_batch': { status: 400, errorCode: 'invalid_batch' },
  'viability.run_not_found': { status: 404, errorCode: 'viability_run_not_found' },
  'viability.invalid_cursor': { status: 400, errorCode: 'invalid_cursor' },
  'discovery.invalid_pattern': { status: 400, errorCode: 'invalid_pattern' },
  'discovery.robots_override_refused': { status: 403, errorCode: 'robots_override_not_allowed' },
  'discovery.crawl_not_found': { status: 404, errorCode: 'crawl_not_found' },
  'discovery.invalid_crawl': { status: 422, errorCode: 'invalid_crawl' },
  'discovery.invalid_state': { status: 409, errorCode: 'invalid_state' },
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

export function httpMappingOf(code: string): HttpErrorMapping | undefined {
  return Object.hasOwn(HTTP_ERROR_TABLE, code) ? HTTP_ERROR_TABLE[code as DomainErrorCode] : undefined;
}
