import { OPS_SUBJECTS, type RunKind } from '@lib/contracts';
import { OpsEventPublisher } from '@lib/messaging';
import type { SqlTransactionScope } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';
import type { LockedJob } from '../persistence/jobs.store';
import type { CompletedRun } from '../persistence/runs.store';
import type { JobClassification } from './job-classification';

/**
 * The run and job facts ops tooling hears about (libs/contracts ops-events), each published once
 * its transaction has committed: the callers hold the transaction that makes the fact true, so a
 * rolled-back completion or start announces nothing, and a fact is announced by the one
 * transaction whose conditional update made it (a run completes exactly once).
 */
@Injectable()
export class RunOpsEvents {
  constructor(@Inject(OpsEventPublisher) private readonly ops: OpsEventPublisher) {}

  runStarted(
    tx: SqlTransactionScope,
    run: {
      id: string;
      kind: RunKind;
      clientId: string;
      collectionId: string | null;
      projectId: string | null;
      totalRequests: number;
    },
  ): void {
    tx.afterCommit(() =>
      this.ops.publish(OPS_SUBJECTS.runStarted, {
        run_id: run.id,
        kind: run.kind,
        client_id: run.clientId,
        collection_id: run.collectionId,
        project_id: run.projectId,
        total_requests: run.totalRequests,
      }),
    );
  }

  runCompleted(tx: SqlTransactionScope, run: CompletedRun, now: Date): void {
    tx.afterCommit(() =>
      this.ops.publish(OPS_SUBJECTS.runCompleted, {
        run_id: run.id,
        kind: run.kind,
        client_id: run.clientId,
        collection_id: run.collectionId,
        project_id: run.projectId,
        state: run.state,
        total_requests: run.totalRequests,
        success_requests: run.successRequests,
        failed_requests: run.failedRequests,
        timeout_requests: run.timeoutRequests,
        cancelled_requests: run.cancelledRequests,
        credits_charged: run.creditsCharged,
        since_created_ms: run.createdAt ? now.getTime() - new Date(run.createdAt).getTime() : null,
      }),
    );
  }

  /** A job that ended without success: `job-timed-out` for a timeout, `job-failed` otherwise. */
  jobEnded(tx: SqlTransactionScope, job: LockedJob, c: JobClassification, blockReason: string | null): void {
    // A crawl's page that is another page (cancelled, duplicate_of) did not fail: discovery scrapes the page it is.
    const status = c.status;
    if (c.isSuccess || status === 'cancelled') return;
    const guidance = c.body.guidance as { error_type?: unknown } | null | undefined;
    const errorType = typeof guidance?.error_type === 'string' ? guidance.error_type : blockReason ? 'blocked' : null;
    tx.afterCommit(() =>
      this.ops.publish(c.status === 'timeout' ? OPS_SUBJECTS.jobTimedOut : OPS_SUBJECTS.jobFailed, {
        job_id: job.id,
        run_id: job.runId,
        client_id: job.clientId,
        project_id: job.projectId,
        status: c.status === 'timeout' ? 'timeout' : 'failed',
        job_status: status,
        error_type: errorType,
        block_reason: blockReason,
        status_code: c.body.statusCode > 0 ? c.body.statusCode : null,
        credits: c.credits,
      }),
    );
  }
}
