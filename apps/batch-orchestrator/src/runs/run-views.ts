import { RunStatus, RunView } from '@lib/contracts';
import type { SqlTransaction } from '@lib/persistence';
import { Injectable } from '@nestjs/common';
import { JobStore } from '../persistence/jobs.store';
import { type CollectionRunRow, RunStore } from '../persistence/runs.store';
import { unixSecondsOf } from '../persistence/unix-seconds';

/** Runs as the client sees them (spec 2.13). A run is found only under its own collection and client. */
@Injectable()
export class RunViews {
  constructor(
    private readonly runs: RunStore,
    private readonly jobs: JobStore,
  ) {}

  async find(clientId: string, collectionId: string, runId: string, within?: Pick<SqlTransaction, 'query'>): Promise<RunView | null> {
    const row = await this.runs.find(clientId, collectionId, runId, within);
    if (!row) return null;
    const view = viewOf(row);
    if (row.status === 'completed') {
      const failed = await this.jobs.failedOfRun(runId, within);
      // Spec 3.2's job statuses have no `cancelled`: a job cancelled before it ran shows as failed with error "cancelled".
      view.failed_jobs = failed.map((j) => ({
        job_id: j.id,
        url: j.url,
        custom_id: j.customId,
        status: j.status === 'cancelled' ? 'failed' : j.status,
        error: j.status === 'cancelled' ? 'cancelled' : j.error,
      }));
    }
    return view;
  }

  /** Newest first; runs without created_at last. */
  async list(clientId: string, collectionId: string, status?: RunStatus): Promise<{ items: RunView[]; total: number }> {
    const rows = await this.runs.list(clientId, collectionId, status);
    return { items: rows.map(viewOf), total: rows.length };
  }
}

function viewOf(row: CollectionRunRow): RunView {
  return {
    run_id: row.id,
    status: row.status,
    total_requests: row.totalRequests,
    success_requests: row.successRequests,
    failed_requests: row.failedRequests,
    timeout_requests: row.timeoutRequests,
    cancelled_requests: row.cancelledRequests,
    collection_id: row.collectionId,
    job_ids: row.jobIds ?? [],
    callback_url: row.callbackUrl,
    callback_status: row.callbackStatus,
    created_at: row.createdAt ? unixSecondsOf(row.createdAt) : null,
    success_criterion: row.successCriterion,
    all_jobs_persisted: row.allJobsPersisted,
    credits_charged: row.creditsCharged,
  };
}
