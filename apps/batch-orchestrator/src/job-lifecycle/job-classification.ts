import {
  type JobErrorType,
  deliveredUsableContent,
  type DuplicateOf,
  noPageContent,
  type JobStatus,
  type ScrapeExecutionFacts,
  type ScrapeResultBody,
} from '@lib/contracts';

/** What became of one attempt of a job, as the worker (or the sweeper) reports it. */
export type JobOutcome =
  | { kind: 'executed'; facts: ScrapeExecutionFacts; result: ScrapeResultBody; executionTimeMs: number }
  | { kind: JobErrorType; message: string; executionTimeMs: number };

/** A finished job's final status, success, credits, error and the body stored as its result. */
export interface JobClassification {
  /** `cancelled`: a crawl's page that is another page (its facts' duplicate_of), never charged. */
  status: Exclude<JobStatus, 'processing'> | 'cancelled';
  isSuccess: boolean;
  credits: number;
  error: string | null;
  body: ScrapeResultBody;
}

/**
 * Spec 2.13/3.2: success = the worker completed, the target answered 2xx and nothing flagged a
 * block; failed = worker failure, 4xx/5xx, captcha or a validator flag; timeout = worker-level
 * timeout. A target that never answered (DNS, connection, proxy) is a worker failure: `failed`,
 * not charged, like the sync scrape.
 */
export function classifyJobOutcome(outcome: JobOutcome): JobClassification {
  if (outcome.kind !== 'executed') {
    return {
      status: outcome.kind === 'timeout' ? 'timeout' : 'failed',
      isSuccess: false,
      credits: 0,
      error: outcome.message,
      body: unexecutedBody(outcome.kind, outcome.message, outcome.executionTimeMs),
    };
  }
  const { facts, result } = outcome;
  if (facts.duplicate_of) return duplicateOf(facts.duplicate_of, result);
  const answered = facts.billable;
  const ok2xx = result.statusCode >= 200 && result.statusCode < 300;
  const isSuccess = deliveredUsableContent(facts, result);
  let error: string | null = null;
  if (!isSuccess) {
    if (!answered) error = `${String(result.guidance?.error_type ?? 'fetch_failed')}: ${result.message}`;
    else if (facts.block_reason) error = `blocked: ${facts.block_reason}`;
    else if (!ok2xx) error = `HTTP ${result.statusCode}`;
    else error = String(result.guidance?.error_type ?? 'content not usable');
  }
  return { status: answered ? 'completed' : 'failed', isSuccess, credits: answered ? facts.credits : 0, error, body: result };
}

/**
 * A crawl's page that is another page: not a page of its own, so none of its content is kept and it
 * is not charged (decision 0035); discovery admits the page it is. `cancelled` keeps it out of
 * the crawl's completed and failed pages and out of its page webhooks.
 */
function duplicateOf(twin: DuplicateOf, result: ScrapeResultBody): JobClassification {
  const message =
    twin.reason === 'redirect'
      ? `A redirect to ${twin.url}: not a page of its own.`
      : `Its rel=canonical names ${twin.url}: not a page of its own.`;
  return {
    status: 'cancelled',
    isSuccess: false,
    credits: 0,
    error: 'duplicate',
    body: {
      ...result,
      ...noPageContent(),
      content_type: result.content_type,
      message,
      guidance: result.guidance
        ? {
            ...result.guidance,
            success: false,
            error_type: null,
            credits_charged: 0,
            next_steps: [`The crawl scrapes ${twin.url} as its page (once, however many pages lead to it); this fetch was not charged.`],
            suggested_request: null,
          }
        : result.guidance,
      duplicate_of: twin,
    },
  };
}

function unexecutedBody(kind: JobErrorType, message: string, executionTimeMs: number): ScrapeResultBody {
  const next: Record<typeof kind, string[]> = {
    timeout: ['The worker ran out of time on this job; re-run the collection, or split very slow pages into their own run.'],
    worker_failure: ['The worker failed before the target answered; nothing was charged. Re-run the collection to retry.'],
    quota_exceeded: [
      'The monthly credit quota was used up before this job ran; nothing was charged. Re-run after the quota resets or upgrade the plan.',
    ],
  };
  return {
    ...noPageContent(),
    statusCode: 0,
    message,
    executionTime: executionTimeMs / 1000,
    potentiallyBlockedByCaptcha: false,
    timings: { total_ms: Math.round(executionTimeMs) },
    guidance: {
      success: false,
      error_type: kind,
      error_provider: null,
      credits_charged: 0,
      credits_refunded: false,
      next_steps: next[kind],
      suggested_request: null,
      stop_reason: kind === 'quota_exceeded' ? 'quota_exceeded' : null,
    },
  };
}
