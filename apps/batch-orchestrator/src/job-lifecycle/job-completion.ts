import { chargeDetailsOf, jobOutcomeOf } from '@lib/contracts';
import { enqueueWebhook, SqlTransactionScope } from '@lib/persistence';
import { platformMetrics } from '@lib/metrics';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type FinishedJob, type JobSettlement, JobStore, type LockedJob, type SettledJob } from '../persistence/jobs.store';
import { RunStore } from '../persistence/runs.store';
import { classifyJobOutcome, type JobClassification, type JobOutcome } from './job-classification';
import { RunOpsEvents } from './run-ops-events';
import { RUN_KIND_RULES, type RunCounters } from '../runs/run-kind-rules';

export type { JobOutcome } from './job-classification';

/**
 * Finishes a job in one transaction: its final status and classification (spec 2.13/3.2), its
 * stored result, the run's counters, its ledger entry (charge key unique per job, so no attempt
 * can charge twice), the page's webhook when its crawl asked for them, and — when this was the
 * run's last job — the run's completion and its webhook outbox row. The run completes exactly
 * once: the status change is conditional.
 */
@Injectable()
export class JobCompletion {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly jobs: JobStore,
    private readonly runs: RunStore,
    private readonly opsEvents: RunOpsEvents,
  ) {}

  /** For a worker's report: false when `attempt` no longer owns the job (fenced off). */
  async complete(
    jobId: string,
    attempt: number,
    outcome: JobOutcome,
  ): Promise<{ accepted: boolean; clientId: string | null; creditsMoved: boolean; runCompleted: boolean }> {
    // Most jobs' ends are the one statement, committed by itself (JobStore.finishAndSettleThen).
    const { finished, settlement, settle } = this.settlementOf(outcome);
    return this.jobs.finishAndSettleThen(jobId, attempt, finished, settlement, async (tx, row) => {
      const settled = row && (await settle(tx, row));
      if (!settled) return { accepted: false, clientId: null, creditsMoved: false, runCompleted: false };
      return { accepted: true, clientId: settled.clientId, creditsMoved: settled.creditsMoved, runCompleted: settled.runCompleted };
    });
  }

  /**
   * Finishes a job the caller holds locked (the sweeper's timeout, a claim past the quota).
   * `creditsMoved`: a hold was released or a charge recorded (the client's quota changed);
   * `runCompleted`: this was the run's last job.
   */
  async completeWithin(
    tx: SqlTransactionScope,
    job: LockedJob,
    outcome: JobOutcome,
  ): Promise<{ creditsMoved: boolean; runCompleted: boolean }> {
    const { finished, settlement, settle } = this.settlementOf(outcome);
    const row = await this.jobs.finishAndSettle(tx, job.id, null, finished, settlement);
    if (!row) throw new Error(`job ${job.id} vanished while locked`);
    return settle(tx, row);
  }

  /**
   * A job's end as the statement writes it (its row, result, credits and run counters:
   * JobStore.finishAndSettle), and what only some ends lead to, for `settle` to write in the same
   * transaction: a crawl page's webhook, the run's completion.
   */
  private settlementOf(outcome: JobOutcome): {
    finished: FinishedJob;
    settlement: JobSettlement;
    settle: (tx: SqlTransactionScope, settled: SettledJob) => Promise<{ clientId: string; creditsMoved: boolean; runCompleted: boolean }>;
  } {
    const now = this.clock.now();
    const c = classifyJobOutcome(outcome);
    const facts = outcome.kind === 'executed' ? outcome.facts : null;
    // The statement appends url, custom_id and status from the row: last, as a spread put them.
    const body: Record<string, unknown> = { ...c.body };
    delete body.url;
    delete body.custom_id;
    delete body.status;
    const settlement: JobSettlement = {
      body,
      entryId: randomUUID(),
      mode: facts?.mode ?? null,
      details: facts ? chargeDetailsOf(facts, { success: c.isSuccess, executionMs: outcome.executionTimeMs }) : {},
    };
    const settle = async (tx: SqlTransactionScope, { job, run }: SettledJob) => {
      this.opsEvents.jobEnded(tx, job, c, facts?.block_reason ?? null);
      tx.afterCommit(() => {
        platformMetrics.jobsFinished.inc({ status: c.status, outcome: jobOutcomeOf(c.status, c.isSuccess) ?? 'failed' });
        if (c.credits > 0) platformMetrics.creditsCharged.inc({ source: 'batch' }, c.credits);
      });
      const creditsMoved = Boolean(job.reservationId) || c.credits > 0;
      const pageWebhook = run.pageWebhookUrl ? RUN_KIND_RULES[run.kind].pageWebhook(job, c, now) : null;
      if (pageWebhook)
        await enqueueWebhook(tx, {
          id: randomUUID(),
          runId: job.runId,
          subjectId: job.id,
          clientId: job.clientId,
          callbackUrl: run.pageWebhookUrl!,
          payload: pageWebhook,
          createdAt: now,
        });
      const ends = run.lastJob && RUN_KIND_RULES[run.kind].endsWithLastJob(run.state);
      if (ends) await this.completeRun(tx, job.runId, now);
      return { clientId: job.clientId, creditsMoved, runCompleted: ends };
    };
    return { finished: finishedJob(outcome, c, now), settlement, settle };
  }

  /**
   * Completes the run (exactly once) and, when it has a callback_url, writes its webhook (its body
   * is the run kind's: RUN_KIND_RULES). Also the end of a cancel that left no job in flight.
   */
  async completeRun(tx: SqlTransactionScope, runId: string, now: Date): Promise<void> {
    const run = await this.runs.complete(tx, runId, now);
    if (run) this.opsEvents.runCompleted(tx, run, now);
    if (!run || !run.callbackUrl) return;
    const counters: RunCounters = {
      status: 'completed',
      total_requests: run.totalRequests,
      success_requests: run.successRequests,
      failed_requests: run.failedRequests,
      timeout_requests: run.timeoutRequests,
      cancelled_requests: run.cancelledRequests,
    };
    const payload = RUN_KIND_RULES[run.kind].completionWebhook(run, counters, now);
    await enqueueWebhook(tx, {
      id: randomUUID(),
      runId: run.id,
      subjectId: run.id,
      clientId: run.clientId,
      callbackUrl: run.callbackUrl,
      payload,
      createdAt: now,
    });
  }
}

/** The job row's final state for an outcome, as classified. */
function finishedJob(outcome: JobOutcome, c: JobClassification, now: Date): FinishedJob {
  const facts = outcome.kind === 'executed' ? outcome.facts : null;
  return {
    status: c.status,
    completedAt: now,
    statusCode: facts ? c.body.statusCode : null,
    message: c.body.message,
    error: c.error,
    executionTimeMs: Math.max(0, Math.round(outcome.executionTimeMs)),
    blockReason: facts?.block_reason ?? null,
    protectionStack: facts?.protection_stack ?? [],
    ruleHits: facts?.rule_hits ?? [],
    isSuccess: c.isSuccess,
    credits: c.credits,
  };
}
