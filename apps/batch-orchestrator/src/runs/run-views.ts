import { RunStatus, RunView } from '@lib/contracts';
import { DATABASE, DatabaseConnection, SqlTransaction } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

interface RunRow {
  id: string;
  collection_id: string;
  status: RunStatus;
  total_requests: number;
  success_requests: number;
  failed_requests: number;
  timeout_requests: number;
  credits_charged: number;
  job_ids: string[];
  callback_url: string | null;
  callback_status: string | null;
  success_criterion: { version: string; rules: string[] } | null;
  all_jobs_persisted: boolean | null;
  created_at: Date | null;
}

// callback_status is the webhook's delivery state (webhook-sender keeps it on the outbox row once the run completed).
const RUN_COLUMNS =
  'r.id, r.collection_id, r.status, r.total_requests, r.success_requests, r.failed_requests, r.timeout_requests, r.credits_charged, r.job_ids, r.callback_url, coalesce(o.status, r.callback_status) as callback_status, r.success_criterion, r.all_jobs_persisted, r.created_at';
const RUN_FROM = 'runs r left join webhook_outbox o on o.run_id = r.id';

/** Runs as the client sees them (spec 2.13). A run is found only under its own collection and client. */
@Injectable()
export class RunViews {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async find(
    clientId: string,
    collectionId: string,
    runId: string,
    within: Pick<SqlTransaction, 'query'> = this.db.sql,
  ): Promise<RunView | null> {
    const [row] = await within.query<RunRow>(
      `select ${RUN_COLUMNS} from ${RUN_FROM} where r.id = $1 and r.collection_id = $2 and r.client_id = $3`,
      [runId, collectionId, clientId],
    );
    if (!row) return null;
    const view = viewOf(row);
    if (row.status === 'completed') {
      const failed = await within.query<{ id: string; url: string; custom_id: string | null; status: string; error: string | null }>(
        'select id, url, custom_id, status, error from jobs where run_id = $1 and is_success = false order by seq',
        [runId],
      );
      view.failed_jobs = failed.map((j) => ({ job_id: j.id, url: j.url, custom_id: j.custom_id, status: j.status, error: j.error }));
    }
    return view;
  }

  /** Newest first; runs without created_at last. */
  async list(clientId: string, collectionId: string, status?: RunStatus): Promise<{ items: RunView[]; total: number }> {
    const params: unknown[] = [collectionId, clientId];
    const filter = status ? ` and r.status = $${params.push(status)}` : '';
    const rows = await this.db.sql.query<RunRow>(
      `select ${RUN_COLUMNS} from ${RUN_FROM} where r.collection_id = $1 and r.client_id = $2${filter} order by r.created_at desc nulls last, r.id`,
      params,
    );
    return { items: rows.map(viewOf), total: rows.length };
  }
}

function viewOf(row: RunRow): RunView {
  return {
    run_id: row.id,
    status: row.status,
    total_requests: row.total_requests,
    success_requests: row.success_requests,
    failed_requests: row.failed_requests,
    timeout_requests: row.timeout_requests,
    collection_id: row.collection_id,
    job_ids: row.job_ids ?? [],
    callback_url: row.callback_url,
    callback_status: row.callback_status,
    created_at: row.created_at ? Math.floor(new Date(row.created_at).getTime() / 1000) : null,
    success_criterion: row.success_criterion,
    all_jobs_persisted: row.all_jobs_persisted,
    credits_charged: row.credits_charged,
  };
}
