/** Every answer of the API that is not a success, with the contract's fields (operator contract §5). */
export class ScrapingApiError extends Error {
  constructor(
    /** HTTP status. */
    readonly status: number,
    /** Stable machine-readable code (`rate_limit_exceeded`, `collection_not_found`, `validation_error` for the list form, …). */
    readonly errorCode: string,
    /** The body as sent: `{detail, error_code}`, the 422 list form, or the job-result 404 object. */
    readonly body: unknown,
    /** Seconds the server asked to wait (429, 503), if it said. */
    readonly retryAfterSeconds: number | null,
  ) {
    super(`${status} ${errorCode}: ${describe(body)}`);
    this.name = 'ScrapingApiError';
  }

  /** The validation problems of a 422 (or a collection route's 400), else an empty list. */
  get problems(): Array<{ loc: Array<string | number>; msg: string; type: string }> {
    const detail = isRecord(this.body) ? this.body.detail : undefined;
    return Array.isArray(detail) ? detail.filter(isProblem) : [];
  }
}

export function errorFromResponse(response: Response, body: unknown): ScrapingApiError {
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ScrapingApiError(response.status, errorCodeOf(body), body, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
}

/** The error_code wherever the body carries it (top level, or inside the job-result 404's detail). */
function errorCodeOf(body: unknown): string {
  if (!isRecord(body)) return 'unknown_error';
  if (typeof body.error_code === 'string') return body.error_code;
  if (isRecord(body.detail) && typeof body.detail.error_code === 'string') return body.detail.error_code;
  if (Array.isArray(body.detail)) return 'validation_error';
  return 'unknown_error';
}

function describe(body: unknown): string {
  if (!isRecord(body)) return String(body).slice(0, 300);
  const detail = body.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail))
    return detail
      .filter(isProblem)
      .map((p) => `${p.loc.join('.')}: ${p.msg}`)
      .join('; ');
  if (isRecord(detail) && typeof detail.message === 'string') return detail.message;
  return JSON.stringify(body).slice(0, 300);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isProblem(value: unknown): value is { loc: Array<string | number>; msg: string; type: string } {
  return isRecord(value) && Array.isArray(value.loc) && typeof value.msg === 'string' && typeof value.type === 'string';
}
