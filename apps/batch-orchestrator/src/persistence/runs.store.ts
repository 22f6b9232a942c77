import type { RunState, RunKind, RunStatus } from '@lib/contracts';
import { DATABASE, type DatabaseConnection, type Run, type SqlTransaction, storableJson } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

/** A run as the client sees it; `callbackStatus` is the webhook's delivery state once it has an outbox row. */
export type RunRow = Pick<
  Run,
  | 'id'
  | 'collectionId'
  | 'totalRequests'
  | 'successRequests'
  | 'failedRequests'
  | 'timeoutRequests'
  | 'cancelledRequests'
  | 'creditsCharged'
  | 'jobIds'
  | 'callbackUrl'
  | 'callbackStatus'
  | 'allJobsPersisted'
  | 'createdAt'
> & { status: RunStatus; successCriterion: { version: string; rules: string[] } | null };

/** A collection run: found only under its collection, so it has one. */
export type CollectionRunRow = RunRow & { collectionId: string };

/** A batch as the client sees it. */
export type BatchRow = Omit<RunRow, 'collectionId' | 'jobIds' | 'successCriterion' | 'allJobsPersisted'> & {
  projectId: string;
  name: string;
  state: RunState;
  createdAt: Date;
  completedAt: Date | null;
};

/** A run's lifecycle and counters, whatever its kind. */
export interface RunFigures {
  state: RunState;
  status: RunStatus;
  total: number;
  success: number;
  failed: number;
  timeout: number;
  cancelled: number;
  credits: number;
  completedAt: Date | null;
}

/** A run locked for a lifecycle change. */
export interface LockedRun {
  id: string;
  kind: RunKind;
  clientId: string;
  projectId: string | null;
  status: RunStatus;
  state: RunState;
  totalRequests: number;
}

/** A run that has just completed: what its webhook reports. */
export type CompletedRun = Pick<
  Run,
  | 'id'
  | 'collectionId'
  | 'projectId'
  | 'clientId'
  | 'callbackUrl'
  | 'totalRequests'
  | 'successRequests'
  | 'failedRequests'
  | 'timeoutRequests'
  | 'cancelledRequests'
  | 'jobIds'
  | 'creditsCharged'
  | 'createdAt'
> & { kind: RunKind; state: RunState };

/**
 * A run as it opens, of any kind: the columns a kind does not use stay null (a collection's run has
 * no project, a batch no collection, a crawl neither). Its state is the kind's opening state
 * (RUN_KIND_RULES); every run is `in_progress` until its last job ends or it is sealed.
 */
export interface NewRun {
  id: string;
  kind: RunKind;
  state: RunState;
  clientId: string;
  collectionId?: string;
  projectId?: string;
  name?: string;
  totalRequests: number;
  maxConcurrency: number;
  monthlyCredits: number | null;
  callbackUrl: string | null;
  /** A `crawl.page`-style webhook per job that ends; only with a callback URL. */
  pageWebhooks?: boolean;
  successCriterion: { version: string; rules: string[] };
  createdAt: Date;
}

/** Which run to lock: by id, within a client's runs, a kind or a collection when the caller names one. */
export interface RunLockScope {
  runId: string;
  clientId?: string;
  kind?: RunKind;
  collectionId?: string;
}

// callback_status is the webhook's delivery state (webhook-sender keeps it on the outbox row once
// the run completed): the one read of webhook_outbox outside webhook-sender, read-only.
const VIEW_COLUMNS = [
  'r.id',
  'r.collection_id "collectionId"',
  'r.status',
  'r.total_requests "totalRequests"',
  'r.success_requests "successRequests"',
  'r.failed_requests "failedRequests"',
  'r.timeout_requests "timeoutRequests"',
  'r.cancelled_requests "cancelledRequests"',
  'r.credits_charged "creditsCharged"',
  'r.job_ids "jobIds"',
  'r.callback_url "callbackUrl"',
  'coalesce(o.status, r.callback_status) "callbackStatus"',
  'r.success_criterion "successCriterion"',
  'r.all_jobs_persisted "allJobsPersisted"',
  'r.created_at "createdAt"',
].join(', ');
// The run's own webhook (its completion): the outbox row whose subject is the run.
const VIEW_FROM = 'runs r left join webhook_outbox o on o.subject_id = r.id';
const LOCKED_RUN_COLUMNS = 'id, kind, client_id "clientId", project_id "projectId", status, state, total_requests "totalRequests"';
const BATCH_COLUMNS = [
  'r.id',
  'r.project_id "projectId"',
  'r.name',
  'r.status',
  'r.state',
  'r.total_requests "totalRequests"',
  'r.success_requests "successRequests"',
  'r.failed_requests "failedRequests"',
  'r.timeout_requests "timeoutRequests"',
  'r.cancelled_requests "cancelledRequests"',
  'r.credits_charged "creditsCharged"',
  'r.callback_url "callbackUrl"',
  'coalesce(o.status, r.callback_status) "callbackStatus"',
  'r.created_at "createdAt"',
  'r.completed_at "completedAt"',
].join(', ');

/**
 * The `runs` table, owned by batch-orchestrator. Its counters change only in the transaction that
 * completes a job, so they never disagree with the job rows. SQL through the driver: the counter
 * update and the conditional completion are on every job's completion path, inside the
 * transaction that locks the job (docs/decisions/0012). result-store reads a run's existence to
 * scope its listings (its ListedJobStore).
 */
@Injectable()
export class RunStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** Opens a run of any kind; false when it was there already (a create sent again changes nothing). */
  async insert(tx: SqlTransaction, run: NewRun): Promise<boolean> {
    const inserted = await tx.query<{ id: string }>(
      `insert into runs (id, kind, collection_id, project_id, name, client_id, status, state, total_requests, max_concurrency, monthly_credits,
                         callback_url, callback_status, page_webhooks, success_criterion, all_jobs_persisted, created_at)
       values ($1, $2, $3, $4, $5, $6, 'in_progress', $7, $8, $9, $10, $11, $12, $13, $14::jsonb, false, $15)
       on conflict (id) do nothing returning id`,
      [
        run.id,
        run.kind,
        run.collectionId ?? null,
        run.projectId ?? null,
        run.name ?? null,
        run.clientId,
        run.state,
        run.totalRequests,
        run.maxConcurrency,
        run.monthlyCredits,
        run.callbackUrl,
        run.callbackUrl ? 'pending' : null,
        Boolean(run.pageWebhooks) && run.callbackUrl !== null,
        storableJson(run.successCriterion),
        run.createdAt,
      ],
    );
    return inserted.length > 0;
  }

  /** Keeps the ids of the run's jobs, in order, for the run's life (job rows are pruned with the listing). */
  async recordJobIds(tx: SqlTransaction, runId: string): Promise<void> {
    await tx.query(
      'update runs set job_ids = (select coalesce(array_agg(id order by seq), array[]::uuid[]) from jobs where run_id = $1) where id = $1',
      [runId],
    );
  }

  /**
   * Counts `n` jobs cancelled before they ran: failed (so total = success + failed + timeout holds
   * on the spec's endpoints) and cancelled. Returns whether no job of the run is left to finish.
   */
  async countCancelledJobs(tx: SqlTransaction, runId: string, n: number): Promise<{ lastJob: boolean }> {
    const [run] = await tx.query<{ status: string; done: number; total: number }>(
      `update runs set failed_requests = failed_requests + $2, cancelled_requests = cancelled_requests + $2 where id = $1
       returning status, success_requests + failed_requests + timeout_requests as done, total_requests as total`,
      [runId, n],
    );
    return { lastJob: Boolean(run) && run.status === 'in_progress' && run.done === run.total };
  }

  /** `n` more jobs in the run (a crawl's pages appended). */
  async addJobs(tx: SqlTransaction, runId: string, n: number): Promise<void> {
    if (n > 0) await tx.query('update runs set total_requests = total_requests + $2 where id = $1', [runId, n]);
  }

  /** Whether every job of the run has ended (success, failed or timed out). */
  async allJobsEnded(tx: SqlTransaction, runId: string): Promise<boolean> {
    const [run] = await tx.query<{ ended: boolean }>(
      'select success_requests + failed_requests + timeout_requests = total_requests as ended from runs where id = $1',
      [runId],
    );
    return Boolean(run?.ended);
  }

  /** A run's lifecycle and counters; null when there is no such run (of that kind, when one is named). */
  async figures(runId: string, kind?: RunKind): Promise<RunFigures | null> {
    const params: unknown[] = [runId];
    const ofKind = kind === undefined ? '' : ` and kind = $${params.push(kind)}`;
    const [row] = await this.db.sql.query<RunFigures>(
      `select state, status, total_requests total, success_requests success, failed_requests failed, timeout_requests timeout,
              cancelled_requests cancelled, credits_charged credits, completed_at "completedAt"
       from runs where id = $1${ofKind}`,
      params,
    );
    return row ?? null;
  }

  /** The run, locked until `tx` ends (a lifecycle change, an append); null when none matches the scope. */
  async lock(tx: SqlTransaction, scope: RunLockScope): Promise<LockedRun | null> {
    const params: unknown[] = [scope.runId];
    const where = ['id = $1'];
    if (scope.clientId !== undefined) where.push(`client_id = $${params.push(scope.clientId)}`);
    if (scope.kind !== undefined) where.push(`kind = $${params.push(scope.kind)}`);
    if (scope.collectionId !== undefined) where.push(`collection_id = $${params.push(scope.collectionId)}`);
    const [run] = await tx.query<LockedRun>(`select ${LOCKED_RUN_COLUMNS} from runs where ${where.join(' and ')} for update`, params);
    return run ?? null;
  }

  async setState(tx: SqlTransaction, runId: string, state: RunState): Promise<void> {
    await tx.query('update runs set state = $2 where id = $1', [runId, state]);
  }

  /** A write added `n` jobs; the plan limits the gateway resolved now replace the old ones. */
  async grow(
    tx: SqlTransaction,
    runId: string,
    n: number,
    limits: { maxConcurrency: number; monthlyCredits: number | null },
  ): Promise<void> {
    await tx.query('update runs set total_requests = total_requests + $2, max_concurrency = $3, monthly_credits = $4 where id = $1', [
      runId,
      n,
      limits.maxConcurrency,
      limits.monthlyCredits,
    ]);
  }

  /** The project's batches that can still run (closing the project cancels them), locked. */
  async lockLiveBatchesOf(tx: SqlTransaction, projectId: string): Promise<LockedRun[]> {
    return tx.query<LockedRun>(
      `select ${LOCKED_RUN_COLUMNS} from runs
       where project_id = $1 and state in ('open', 'running', 'paused', 'cancelling') order by created_at, id for update`,
      [projectId],
    );
  }

  async findBatch(clientId: string, batchId: string, within: Pick<SqlTransaction, 'query'> = this.db.sql): Promise<BatchRow | null> {
    const [row] = await within.query<BatchRow>(
      `select ${BATCH_COLUMNS} from ${VIEW_FROM} where r.id = $1 and r.client_id = $2 and r.kind = 'batch'`,
      [batchId, clientId],
    );
    return row ?? null;
  }

  /**
   * Completes the run exactly once (the change is conditional); null when it had completed already.
   * A run being cancelled ends `cancelled`, any other `completed`.
   */
  async complete(tx: SqlTransaction, runId: string, now: Date): Promise<CompletedRun | null> {
    const [run] = await tx.query<CompletedRun>(
      `update runs set status = 'completed', completed_at = $2, all_jobs_persisted = true,
         state = case when state in ('cancelling', 'cancelled') then 'cancelled' else 'completed' end
       where id = $1 and status = 'in_progress'
       returning id, kind, state, collection_id "collectionId", project_id "projectId", client_id "clientId", callback_url "callbackUrl",
         total_requests "totalRequests", success_requests "successRequests", failed_requests "failedRequests",
         timeout_requests "timeoutRequests", cancelled_requests "cancelledRequests", job_ids "jobIds",
         credits_charged "creditsCharged", created_at "createdAt"`,
      [runId, now],
    );
    return run ?? null;
  }

  async find(
    clientId: string,
    collectionId: string,
    runId: string,
    within: Pick<SqlTransaction, 'query'> = this.db.sql,
  ): Promise<CollectionRunRow | null> {
    const [row] = await within.query<CollectionRunRow>(
      `select ${VIEW_COLUMNS} from ${VIEW_FROM} where r.id = $1 and r.collection_id = $2 and r.client_id = $3`,
      [runId, collectionId, clientId],
    );
    return row ?? null;
  }

  /** Newest first; runs without created_at last. */
  async list(clientId: string, collectionId: string, status?: RunStatus): Promise<CollectionRunRow[]> {
    const params: unknown[] = [collectionId, clientId];
    const filter = status ? ` and r.status = $${params.push(status)}` : '';
    return this.db.sql.query<CollectionRunRow>(
      `select ${VIEW_COLUMNS} from ${VIEW_FROM} where r.collection_id = $1 and r.client_id = $2${filter} order by r.created_at desc nulls last, r.id`,
      params,
    );
  }

  /** The monthly credit limit the gateway resolved at the client's newest run or batch write (null: unlimited or none). */
  async newestMonthlyLimit(clientId: string): Promise<number | null> {
    const [run] = await this.db.sql.query<{ limit: number | null }>(
      'select monthly_credits "limit" from runs where client_id = $1 order by created_at desc nulls last limit 1',
      [clientId],
    );
    return run?.limit ?? null;
  }
}
