import { type BatchJobErrorType, type JobStatus, ledgerDetailsOf, type ScrapeExecutionFacts, type ScrapeResultBody } from '@lib/contracts';
import { DATABASE, DatabaseConnection, lockCreditAccount, recordLedgerCharge, SqlTransaction, storableJson } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';

/** What became of one attempt of a job, as the worker (or the sweeper) reports it. */
export type JobOutcome =
  | { kind: 'executed'; facts: ScrapeExecutionFacts; result: ScrapeResultBody; executionTimeMs: number }
  | { kind: BatchJobErrorType; message: string; executionTimeMs: number };

/** The job row as completion needs it (locked FOR UPDATE by the caller). */
export interface LockedJob {
  id: string;
  run_id: string;
  collection_id: string;
  client_id: string;
  url: string;
  custom_id: string | null;
  mode: 'simple' | 'browser';
  status: JobStatus;
  attempt: number;
  reservation_id: string | null;
  retries_attempted: number;
  started_at: Date | null;
}

export const LOCKED_JOB_COLUMNS =
  'id, run_id, collection_id, client_id, url, custom_id, mode, status, attempt, reservation_id, retries_attempted, started_at';

interface Classified {
  status: Exclude<JobStatus, 'processing'>;
  isSuccess: boolean;
  credits: number;
  error: string | null;
  body: ScrapeResultBody;
}

/**
 * Finishes a job in one transaction: its final status and classification (spec 2.13/3.2), its
 * stored result, the run's counters, its ledger entry (charge key unique per job, so no attempt
 * can charge twice) and — when this was the run's last job — the run's completion and its
 * webhook outbox row. The run completes exactly once: the status change is conditional.
 */
@Injectable()
export class JobCompletion {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** For a worker's report: false when `attempt` no longer owns the job (fenced off). */
  async complete(
    jobId: string,
    attempt: number,
    outcome: JobOutcome,
  ): Promise<{ accepted: boolean; clientId: string | null; creditsMoved: boolean }> {
    return this.db.sql.transaction(async (tx) => {
      const [job] = await tx.query<LockedJob>(`select ${LOCKED_JOB_COLUMNS} from jobs where id = $1 for update`, [jobId]);
      if (!job || job.status !== 'processing' || job.attempt !== attempt || !job.started_at)
        return { accepted: false, clientId: null, creditsMoved: false };
      const { creditsMoved } = await this.completeWithin(tx, job, outcome);
      return { accepted: true, clientId: job.client_id, creditsMoved };
    });
  }

  /** `creditsMoved`: a hold was released or a charge recorded (the client's quota changed). */
  async completeWithin(tx: SqlTransaction, job: LockedJob, outcome: JobOutcome): Promise<{ creditsMoved: boolean }> {
    const now = this.clock.now();
    const c = classify(job, outcome);
    const facts = outcome.kind === 'executed' ? outcome.facts : null;
    await tx.query(
      `update jobs set status = $2, completed_at = $3, status_code = $4, message = $5, error = $6, execution_time_ms = $7, block_reason = $8,
         protection_stack = $9::text[], rule_hits = $10::text[], is_success = $11, credits = $12, lease_expires_at = null, reservation_id = null
       where id = $1`,
      [
        job.id,
        c.status,
        now,
        facts ? c.body.statusCode : null,
        c.body.message,
        c.error,
        Math.max(0, Math.round(outcome.executionTimeMs)),
        facts?.block_reason ?? null,
        facts?.protection_stack ?? [],
        facts?.rule_hits ?? [],
        c.isSuccess,
        c.credits,
      ],
    );
    // A text column: JSON.stringify escapes NUL and lone surrogates of scraped pages as \u sequences
    // that text stores and JSON.parse restores, so the page comes back exactly as it was fetched.
    const stored = JSON.stringify({ ...c.body, url: job.url, custom_id: job.custom_id, status: c.status });
    await tx.query(
      'insert into job_results (job_id, run_id, body, size_bytes, completed_at) values ($1, $2, $3, $4, $5) on conflict (job_id) do nothing',
      [job.id, job.run_id, stored, Buffer.byteLength(stored), now],
    );

    if (job.reservation_id || c.credits > 0) {
      await lockCreditAccount(tx, job.client_id);
      if (job.reservation_id) await tx.query('delete from credit_reservations where id = $1', [job.reservation_id]);
      if (c.credits > 0) {
        await recordLedgerCharge(tx, {
          id: randomUUID(),
          clientId: job.client_id,
          credits: c.credits,
          mode: facts!.mode,
          chargeKey: `batch-job:${job.id}`,
          details: ledgerDetailsOf(
            facts!,
            { success: c.isSuccess, executionMs: outcome.executionTimeMs },
            { run_id: job.run_id, job_id: job.id },
          ),
          at: now,
        });
      }
    }

    const creditsMoved = Boolean(job.reservation_id) || c.credits > 0;
    const [run] = await tx.query<{ status: string; done: number; total: number; callback_url: string | null }>(
      `update runs set success_requests = success_requests + $2, failed_requests = failed_requests + $3, timeout_requests = timeout_requests + $4,
         credits_charged = credits_charged + $5
       where id = $1
       returning status, success_requests + failed_requests + timeout_requests as done, total_requests as total, callback_url`,
      [job.run_id, c.isSuccess ? 1 : 0, !c.isSuccess && c.status !== 'timeout' ? 1 : 0, c.status === 'timeout' ? 1 : 0, c.credits],
    );
    if (run && run.status === 'in_progress' && run.done === run.total) await this.completeRun(tx, job.run_id, now);
    return { creditsMoved };
  }

  private async completeRun(tx: SqlTransaction, runId: string, now: Date): Promise<void> {
    const [run] = await tx.query<{
      id: string;
      collection_id: string;
      client_id: string;
      callback_url: string | null;
      total_requests: number;
      success_requests: number;
      failed_requests: number;
      timeout_requests: number;
      job_ids: string[];
    }>(
      `update runs set status = 'completed', completed_at = $2, all_jobs_persisted = true where id = $1 and status = 'in_progress'
       returning id, collection_id, client_id, callback_url, total_requests, success_requests, failed_requests, timeout_requests, job_ids`,
      [runId, now],
    );
    if (!run || !run.callback_url) return;
    // The body of spec 6; webhook-sender adds the absolute results_url (it knows the public base URL).
    const payload = {
      event: 'run.completed',
      run_id: run.id,
      collection_id: run.collection_id,
      status: 'completed',
      total_requests: run.total_requests,
      success_requests: run.success_requests,
      failed_requests: run.failed_requests,
      timeout_requests: run.timeout_requests,
      job_ids: run.job_ids,
      results_path: `/v1/async/collections/${run.collection_id}/runs/${run.id}`,
      timestamp: now.toISOString(),
    };
    await tx.query(
      'insert into webhook_outbox (id, run_id, client_id, callback_url, payload, status, next_attempt_at, created_at) values ($1, $2, $3, $4, $5::jsonb, $6, $7, $7) on conflict (run_id) do nothing',
      [randomUUID(), run.id, run.client_id, run.callback_url, storableJson(payload), 'pending', now],
    );
  }
}

/**
 * Spec 2.13/3.2: success = the worker completed, the target answered 2xx and nothing flagged a
 * block; failed = worker failure, 4xx/5xx, captcha or a validator flag; timeout = worker-level
 * timeout. A target that never answered (DNS, connection, proxy) is a worker failure: `failed`,
 * not charged, like the sync scrape.
 */
function classify(job: LockedJob, outcome: JobOutcome): Classified {
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
  const answered = facts.billable;
  const ok2xx = result.statusCode >= 200 && result.statusCode < 300;
  const isSuccess = answered && ok2xx && !facts.block_reason && result.guidance?.success !== false;
  let error: string | null = null;
  if (!isSuccess) {
    if (!answered) error = `${String(result.guidance?.error_type ?? 'fetch_failed')}: ${result.message}`;
    else if (facts.block_reason) error = `blocked: ${facts.block_reason}`;
    else if (!ok2xx) error = `HTTP ${result.statusCode}`;
    else error = String(result.guidance?.error_type ?? 'content not usable');
  }
  return { status: answered ? 'completed' : 'failed', isSuccess, credits: answered ? facts.credits : 0, error, body: result };
}

function unexecutedBody(kind: BatchJobErrorType, message: string, executionTimeMs: number): ScrapeResultBody {
  const next: Record<typeof kind, string[]> = {
    timeout: ['The worker ran out of time on this job; re-run the collection, or split very slow pages into their own run.'],
    worker_failure: ['The worker failed before the target answered; nothing was charged. Re-run the collection to retry.'],
    quota_exceeded: [
      'The monthly credit quota was used up before this job ran; nothing was charged. Re-run after the quota resets or upgrade the plan.',
    ],
  };
  return {
    html: null,
    markdown: null,
    statusCode: 0,
    message,
    screenshot: null,
    executionTime: executionTimeMs / 1000,
    extracted_data: null,
    evaluate_results: null,
    network_requests: null,
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
    content_type: null,
    body_base64: null,
    body_url: null,
  };
}
