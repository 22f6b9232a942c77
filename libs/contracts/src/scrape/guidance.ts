/**
 * Every `guidance.error_type` the service reports (spec 2.8 leaves them open; docs/api-guide.md lists them),
 * in one place for the engine that decides them, the batch jobs that report them and the document.
 */
/** The fetch failed: the site never answered (never charged). Browser mode names its network failures with these too. */
export const FETCH_ERROR_TYPES = [
  'dns_error',
  'connection_error',
  'timeout',
  'proxy_error',
  'tls_error',
  'too_many_redirects',
  'body_too_large',
  'target_blocked',
  'fetch_error',
] as const;

export const SCRAPE_ERROR_TYPES = [
  ...FETCH_ERROR_TYPES,
  // What the site answered (charged).
  'http_4xx',
  'http_5xx',
  'captcha',
  'cloudflare_challenge',
  'challenge',
  'hard_block',
  'soft_block',
  'empty_shell',
  // A document the site sent that cannot be read (its bytes are still answered).
  'document_encrypted',
  'document_corrupt',
  'document_too_large',
  // Browser mode.
  'browser_unavailable',
  'browser_busy',
  'browser_error',
  'action_failed',
] as const;

/** The site refusing the scraper (a challenge, a CAPTCHA, a block page): what "blocked" means wherever an answer is judged. */
export const SITE_REFUSAL_ERROR_TYPES = [
  'captcha',
  'cloudflare_challenge',
  'challenge',
  'hard_block',
  'soft_block',
] as const satisfies ReadonlyArray<(typeof SCRAPE_ERROR_TYPES)[number]>;

/** A batch job that never ran to an answer: its worker failed, its lease ran out, or the month's credits did (never charged). */
export const JOB_ERROR_TYPES = ['worker_failure', 'timeout', 'quota_exceeded'] as const;

export const GUIDANCE_ERROR_TYPES = [...new Set([...SCRAPE_ERROR_TYPES, ...JOB_ERROR_TYPES])] as Array<
  (typeof SCRAPE_ERROR_TYPES)[number] | (typeof JOB_ERROR_TYPES)[number]
>;
export type ScrapeErrorType = (typeof SCRAPE_ERROR_TYPES)[number];
export type JobErrorType = (typeof JOB_ERROR_TYPES)[number];
export type GuidanceErrorType = ScrapeErrorType | JobErrorType;
