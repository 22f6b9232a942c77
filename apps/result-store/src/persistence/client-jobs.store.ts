import { type ClientJobStatus, type JobOutcomeName, LISTED_URL_MAX, type RunKind } from '@lib/contracts';
import { DATABASE, type DatabaseConnection, type Job } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

export type ClientJobRow = Pick<
  Job,
  | 'id'
  | 'runId'
  | 'projectId'
  | 'collectionId'
  | 'url'
  | 'customId'
  | 'statusCode'
  | 'error'
  | 'queuedAt'
  | 'startedAt'
  | 'completedAt'
  | 'retriesAttempted'
  | 'isSuccess'
  | 'credits'
> & { seq: string; kind: RunKind; status: ClientJobStatus; outcome: JobOutcomeName | null; urlCut: boolean };

export interface ClientJobsPage {
  clientId: string;
  projectId?: string;
  batchId?: string;
  statuses?: ClientJobStatus[];
  outcomes?: JobOutcomeName[];
  queuedSince?: Date;
  afterSeq: string | null;
  limit: number;
}

// The engine's `processing` shown as what it is to the client: waiting, or handed to a worker.
const CLIENT_STATUS =
  "case when j.status = 'processing' then case when j.dispatched_at is null then 'pending' else 'running' end else j.status end";
const STORED_CONDITION: Record<ClientJobStatus, string> = {
  pending: "(j.status = 'processing' and j.dispatched_at is null)",
  running: "(j.status = 'processing' and j.dispatched_at is not null)",
  completed: "j.status = 'completed'",
  failed: "j.status = 'failed'",
  timeout: "j.status = 'timeout'",
  cancelled: "j.status = 'cancelled'",
};
// jobOutcomeOf (libs/contracts) in SQL, for the filter and the column; a db test holds the two equal.
export const OUTCOME_CONDITION: Record<JobOutcomeName, string> = {
  success: "(j.status = 'completed' and j.is_success is true)",
  failed: "(j.status = 'failed' or (j.status = 'completed' and j.is_success is not true))",
  timeout: "j.status = 'timeout'",
  cancelled: "j.status = 'cancelled'",
};
const OUTCOME = `case when ${OUTCOME_CONDITION.success} then 'success' when ${OUTCOME_CONDITION.failed} then 'failed' when j.status in ('timeout', 'cancelled') then j.status end`;

/**
 * result-store's read of the client's jobs across runs and batches (/v1/jobs): the same rows the
 * run listing serves (see ListedJobStore for why result-store reads batch-orchestrator's tables),
 * keyset on seq. Also checks that a filtering project or batch is the client's, so another
 * client's id is a 404 rather than an empty page.
 */
@Injectable()
export class ClientJobStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async projectExists(clientId: string, projectId: string): Promise<boolean> {
    return (await this.db.sql.query('select id from projects where id = $1 and client_id = $2', [projectId, clientId])).length === 1;
  }

  async batchExists(clientId: string, batchId: string): Promise<boolean> {
    return (await this.db.sql.query('select id from runs where id = $1 and client_id = $2', [batchId, clientId])).length === 1;
  }

  /** Up to `limit + 1` rows in insertion order (the extra one says whether there is a next page). */
  async page(page: ClientJobsPage): Promise<ClientJobRow[]> {
    const params: unknown[] = [page.clientId];
    const where = ['j.client_id = $1'];
    if (page.projectId) where.push(`j.project_id = $${params.push(page.projectId)}`);
    if (page.batchId) where.push(`j.run_id = $${params.push(page.batchId)}`);
    if (page.statuses && page.statuses.length > 0) where.push(`(${page.statuses.map((s) => STORED_CONDITION[s]).join(' or ')})`);
    if (page.outcomes && page.outcomes.length > 0) where.push(`(${page.outcomes.map((o) => OUTCOME_CONDITION[o]).join(' or ')})`);
    if (page.queuedSince) where.push(`j.queued_at >= $${params.push(page.queuedSince)}`);
    if (page.afterSeq) where.push(`j.seq > $${params.push(page.afterSeq)}::bigint`);
    return this.db.sql.query<ClientJobRow>(
      `select j.id, j.seq::text as seq, j.run_id "runId", r.kind, j.project_id "projectId", j.collection_id "collectionId", ${CLIENT_STATUS} as status, ${OUTCOME} as outcome,
         left(j.url, ${LISTED_URL_MAX}) as url, length(j.url) > ${LISTED_URL_MAX} as "urlCut", j.custom_id "customId", j.status_code "statusCode",
         j.error, j.queued_at "queuedAt", j.started_at "startedAt", j.completed_at "completedAt", j.retries_attempted "retriesAttempted",
         j.is_success "isSuccess", j.credits
       from jobs j join runs r on r.id = j.run_id where ${where.join(' and ')} order by j.seq limit ${page.limit + 1}`,
      params,
    );
  }
}
