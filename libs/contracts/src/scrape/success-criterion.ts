/**
 * The success classification of spec 2.13, shared by scrape-engine (which applies it) and
 * batch-orchestrator (which reports it as a run's success_criterion). Bump the version whenever
 * a rule or a signature of the content validator changes meaning, so clients can detect it.
 */
export const CONTENT_RULES_VERSION = 'content-success/2026-11-27.1';

/** Human-readable predicates; a job is a success only when all hold. */
export const SUCCESS_RULES = [
  'the worker completed the fetch',
  'the target answered HTTP 2xx',
  'no CAPTCHA, anti-bot challenge or block page was detected (a page whose purpose is the challenge, not a widget beside content)',
  'an HTML page carries readable content, in its markup or in the noscript blocks it serves clients without JavaScript (not an empty JavaScript shell)',
] as const;

/**
 * The one meaning of a finished scrape's or job's outcome, used by every view that counts them:
 * a run's counters (success/failed/timeout/cancelled_requests), the `outcome` of GET /v1/jobs and
 * of a run's jobs listing, usage metrics (success/failed of charged calls), the console, and the
 * `outcome` label of the jobs_finished_total metric.
 * - `success`: usable content delivered (every rule of SUCCESS_RULES holds; is_success = true);
 * - `timeout`: the worker ran out of time (status timeout);
 * - `failed`: anything else that ended: the target answered 4xx/5xx, a block or CAPTCHA page, an
 *   empty shell or other content flag (status `completed`, is_success = false), or the worker
 *   failed before the target answered (status `failed`, not charged);
 * - `cancelled`: cancelled before it ran.
 * A job still waiting or running has no outcome (null). A run's failed_requests counts `failed`
 * and `cancelled` together (the spec's total = success + failed + timeout has no other place for
 * them); cancelled_requests says how many of those were cancelled.
 */
export const JOB_OUTCOMES = ['success', 'failed', 'timeout', 'cancelled'] as const;
export type JobOutcomeName = (typeof JOB_OUTCOMES)[number];

/** A finished job's outcome from its stored status and is_success; null while it has not ended. */
export function jobOutcomeOf(status: string, isSuccess: boolean | null): JobOutcomeName | null {
  if (status === 'completed') return isSuccess === true ? 'success' : 'failed';
  if (status === 'failed' || status === 'timeout' || status === 'cancelled') return status;
  return null;
}

/** Whether a scrape that produced a result delivered usable content: SUCCESS_RULES, as code. */
export function deliveredUsableContent(
  facts: { billable: boolean; block_reason: string | null },
  result: { statusCode: number; guidance?: { success?: boolean } | null },
): boolean {
  return facts.billable && result.statusCode >= 200 && result.statusCode < 300 && !facts.block_reason && result.guidance?.success !== false;
}
