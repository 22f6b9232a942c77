import { JOB_PAGE_LIMITS, type JobStatus, LISTED_URL_MAX } from '@lib/contracts';
import { DATABASE, type DatabaseConnection, type Job } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

/** A listed job: the row as spec 4.5 shows it, the URL cut to LISTED_URL_MAX characters. */
export type ListedJobRow = Pick<
  Job,
  | 'id'
  | 'runId'
  | 'collectionId'
  | 'url'
  | 'customId'
  | 'statusCode'
  | 'message'
  | 'queuedAt'
  | 'startedAt'
  | 'completedAt'
  | 'executionTimeMs'
  | 'retriesAttempted'
  | 'blockReason'
  | 'protectionStack'
  | 'ruleHits'
  | 'isSuccess'
> & {
  /** `cancelled` too: the listing of spec 4.5 shows it as failed. */
  status: JobStatus | 'cancelled';
  collectionId: string;
  /** bigint as text: the cursor carries it exactly. */
  seq: string;
  urlCut: boolean;
  /** The stored result when asked for and small enough to inline; null otherwise. */
  body?: string | null;
};

/** A job's state and its stored result (null: none stored, or pruned). */
export type StoredJobResult = Pick<Job, 'completedAt'> & { status: JobStatus | 'cancelled'; body: string | null };

/** Which page of a run's jobs: filters, keyset position and order (spec 4.5). */
export interface ListedJobsPage {
  runId: string;
  statuses?: JobStatus[];
  completedAfter?: Date;
  orderBy: 'id' | 'completed_at';
  dir: 'asc' | 'desc';
  after: { seq: string; completedAt?: Date } | null;
  limit: number;
  withResults: boolean;
}

const COLUMNS = [
  'j.id',
  'j.seq::text as seq',
  'j.run_id "runId"',
  'j.collection_id "collectionId"',
  'j.status',
  `left(j.url, ${LISTED_URL_MAX}) as url`,
  `length(j.url) > ${LISTED_URL_MAX} as "urlCut"`,
  'j.custom_id "customId"',
  'j.status_code "statusCode"',
  'j.message',
  'j.queued_at "queuedAt"',
  'j.started_at "startedAt"',
  'j.completed_at "completedAt"',
  'j.execution_time_ms "executionTimeMs"',
  'j.retries_attempted "retriesAttempted"',
  'j.block_reason "blockReason"',
  'j.protection_stack "protectionStack"',
  'j.rule_hits "ruleHits"',
  'j.is_success "isSuccess"',
].join(', ');

/**
 * result-store's access to two tables batch-orchestrator owns, `jobs` and `runs`. The reads are
 * allowed because a job row, once committed, *is* the listing (spec 4.5): serving it from the row
 * batch-orchestrator commits is what makes a job listed the moment its completion commits, with no
 * copy to fall behind. The one write is retention: finished rows older than LISTING_RETENTION_DAYS
 * are the listing's to prune, and a job still `processing` (completed_at null) is never touched.
 * SQL through the driver: the listing's keyset filters and the inline-result subquery are dynamic
 * (docs/decisions/0012).
 */
@Injectable()
export class ListedJobStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** Whether the run exists under this collection and client (every read is scoped by it). */
  async runExists(ref: { runId: string; collectionId: string; clientId: string }): Promise<boolean> {
    const rows = await this.db.sql.query('select id from runs where id = $1 and collection_id = $2 and client_id = $3', [
      ref.runId,
      ref.collectionId,
      ref.clientId,
    ]);
    return rows.length === 1;
  }

  /** Up to `limit + 1` rows (the extra one says whether there is a next page). */
  async page(page: ListedJobsPage): Promise<ListedJobRow[]> {
    const params: unknown[] = [page.runId];
    const where = ['j.run_id = $1'];
    if (page.statuses && page.statuses.length > 0) {
      // Spec 3.2 has no `cancelled`: a cancelled job is listed, and filtered, as failed.
      const stored = page.statuses.includes('failed') ? [...page.statuses, 'cancelled'] : page.statuses;
      where.push(`j.status = any($${params.push(stored)}::text[])`);
    }
    if (page.completedAfter !== undefined) where.push(`j.completed_at > $${params.push(page.completedAfter)}`);
    let order: string;
    if (page.orderBy === 'completed_at') {
      // Ordered by completion: only finished jobs have a place in it.
      where.push('j.completed_at is not null');
      const cmp = page.dir === 'asc' ? '>' : '<';
      if (page.after)
        where.push(`(j.completed_at, j.seq) ${cmp} ($${params.push(page.after.completedAt)}, $${params.push(page.after.seq)}::bigint)`);
      order = `j.completed_at ${page.dir}, j.seq ${page.dir}`;
    } else {
      if (page.after) where.push(`j.seq > $${params.push(page.after.seq)}::bigint`);
      order = 'j.seq asc';
    }
    const withBody = page.withResults
      ? `, (select case when r.size_bytes <= ${JOB_PAGE_LIMITS.inlineResultBytes} and j.status = 'completed' then r.body end from job_results r where r.job_id = j.id) as body`
      : '';
    return this.db.sql.query<ListedJobRow>(
      `select ${COLUMNS}${withBody} from jobs j where ${where.join(' and ')} order by ${order} limit ${page.limit + 1}`,
      params,
    );
  }

  /** One job of the run with its stored result body (null: none stored, or pruned). */
  async withResult(runId: string, jobId: string): Promise<StoredJobResult | null> {
    const [job] = await this.db.sql.query<StoredJobResult>(
      'select j.status, j.completed_at "completedAt", r.body from jobs j left join job_results r on r.job_id = j.id where j.id = $1 and j.run_id = $2',
      [jobId, runId],
    );
    return job ?? null;
  }

  /** One of the client's jobs, of any run or batch, with its stored result body. */
  async withResultOfClient(clientId: string, jobId: string): Promise<StoredJobResult | null> {
    const [job] = await this.db.sql.query<StoredJobResult>(
      'select j.status, j.completed_at "completedAt", r.body from jobs j left join job_results r on r.job_id = j.id where j.id = $1 and j.client_id = $2',
      [jobId, clientId],
    );
    return job ?? null;
  }

  /** Deletes up to `slice` listing rows of jobs that completed before `before`; returns how many went. */
  async pruneFinished(before: Date, slice: number): Promise<number> {
    const gone = await this.db.sql.query(
      `delete from jobs where id in (select id from jobs where completed_at < $1 limit ${slice}) returning 1 as gone`,
      [before],
    );
    return gone.length;
  }
}
