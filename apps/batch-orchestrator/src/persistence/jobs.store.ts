import type { RunState, CrawlPageOutcome, JobDispatch, JobStatus, RunKind } from '@lib/contracts';
import {
  DATABASE,
  type DatabaseConnection,
  type Job,
  type OpeningStatement,
  type SqlExecutor,
  type SqlTransaction,
  type SqlTransactionScope,
  storableJson,
} from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

/** The job row as completion, claims and the sweeper need it (locked by the statement that read it). */
export type LockedJob = Pick<
  Job,
  | 'id'
  | 'runId'
  | 'collectionId'
  | 'projectId'
  | 'clientId'
  | 'url'
  | 'customId'
  | 'attempt'
  | 'reservationId'
  | 'retriesAttempted'
  | 'startedAt'
> & { mode: 'simple' | 'browser'; status: JobStatus };

/** A claimed job: the locked row, the request it runs and its run's monthly quota (null: unlimited). */
export type ClaimedJob = LockedJob & { request: Record<string, unknown>; monthlyCredits: number | null };

/** A job's final state as completion writes it. */
export type FinishedJob = Pick<
  Job,
  'statusCode' | 'message' | 'error' | 'executionTimeMs' | 'blockReason' | 'protectionStack' | 'ruleHits' | 'isSuccess' | 'credits'
> & { status: Exclude<JobStatus, 'processing'> | 'cancelled'; completedAt: Date };

/**
 * What a finished job leads to besides its row: its result (without url, custom_id and status, which
 * the statement adds from the row) and, when it is charged, its ledger entry (details without the
 * run and job ids, added the same way).
 */
export interface JobSettlement {
  body: Record<string, unknown>;
  entryId: string;
  mode: string | null;
  details: object;
}

/** A finished job as it was before (hold included), and its run after counting it. */
export interface SettledJob {
  job: LockedJob;
  run: { kind: RunKind; state: RunState; lastJob: boolean; pageWebhookUrl: string | null };
}

type SettledRow = LockedJob & { runKind: RunKind; runState: RunState; lastJob: boolean; pageWebhookUrl: string | null; goesOn: boolean };

// The job row as the batch functions return it (o_ columns), named as LockedJob's.
const LOCKED_JOB_OUT_COLUMNS = `o_id as id, o_run_id as "runId", o_collection_id as "collectionId", o_project_id as "projectId",
  o_client_id as "clientId", o_url as url, o_custom_id as "customId", o_mode as mode, o_status as status, o_attempt as attempt,
  o_reservation_id as "reservationId", o_retries_attempted as "retriesAttempted", o_started_at as "startedAt"`;

// The migration's function (20261201000000_finish_batch_job, finish_job since 20261205000000). `goesOn`: the job's end leads to
// more than the statement did (its crawl page's webhook, its run's completion).
const FINISH_JOB_SQL = `select ${LOCKED_JOB_OUT_COLUMNS}, o_run_kind as "runKind",
  o_run_state as "runState", o_last_job as "lastJob", o_page_webhook_url as "pageWebhookUrl",
  (o_last_job or o_page_webhook_url is not null) as "goesOn"
  from finish_job($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text[], $11::text[], $12, $13, $14, $15, $16, $17::jsonb)`;

/** A claim: the job as claimed, and whether its run's quota could not cover it (then nothing was held). */
export interface ClaimOutcome {
  job: ClaimedJob & { reclaimed: boolean };
  overQuota: { charged: number; held: number; month: string } | null;
}

type ClaimRow = ClaimedJob & { reclaimed: boolean; overQuota: boolean; charged: number; held: number; month: string };

// The migration's function (20261201010000_claim_batch_job, claim_job since 20261205000000).
const CLAIM_JOB_SQL = `select ${LOCKED_JOB_OUT_COLUMNS}, o_request as request,
  o_monthly_credits as "monthlyCredits", o_reclaimed as reclaimed, o_over_quota as "overQuota", o_charged as charged, o_held as held,
  o_month as month
  from claim_job($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

/** A failed job as a completed run lists it. */
export type FailedJob = Pick<Job, 'id' | 'url' | 'customId' | 'status' | 'error'>;

const LOCKED_COLUMNS = (alias: string) =>
  ['id', 'run_id "runId"', 'collection_id "collectionId"', 'project_id "projectId"', 'client_id "clientId"', 'url', 'custom_id "customId"']
    .concat(['mode', 'status'])
    .concat(['attempt', 'reservation_id "reservationId"', 'retries_attempted "retriesAttempted"', 'started_at "startedAt"'])
    .map((column) => `${alias}.${column}`)
    .join(', ');

/**
 * The `jobs` table, owned by batch-orchestrator: the database is the source of truth for a job's
 * state, and `attempt` fences writes from a worker holding an older dispatch. Every statement is
 * SQL through the driver, not Prisma Client: they are set-based (one statement dispatches or
 * re-dispatches many jobs), lock rows (`for update skip locked`, which Prisma Client cannot
 * express) and sit on each job's path several times (docs/decisions/0012: the measured cost).
 * result-store reads this table too (listings, results) and prunes finished rows: its ListedJobStore.
 */
@Injectable()
export class JobStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /**
   * One statement: takes the platform-wide dispatch-decision lock (held until the statement's
   * transaction ends: run it alone, or last in a transaction), then the client's free places (its
   * runs' max concurrency, and the platform's) and the waiting jobs that fill them, in insertion
   * order, marked dispatched at `now`. `queued`: the client's jobs on the queue that no worker has
   * started, these included (null when the pass dispatched nothing: the statement returns no row then).
   */
  async markDispatched(
    run: Pick<SqlExecutor, 'query'>,
    clientId: string,
    globalConcurrency: number,
    now: Date,
  ): Promise<{ dispatches: JobDispatch[]; queued: number | null }> {
    // The migration's dispatch_client_jobs_locked (the lock, then dispatch_client_jobs: its plan is kept; see there).
    const rows = await run.query<JobDispatch & { seq: string; queued: string }>(
      'select job_id, attempt, seq::text as seq, queued::text as queued from dispatch_client_jobs_locked($1, $2, $3)',
      [clientId, globalConcurrency, now],
    );
    // RETURNING follows no order: publish in insertion order, so jobs start in collection order.
    const dispatches = rows.sort((x, y) => (BigInt(x.seq) < BigInt(y.seq) ? -1 : 1)).map(({ job_id, attempt }) => ({ job_id, attempt }));
    return { dispatches, queued: rows.length > 0 ? Number(rows[0].queued) : null };
  }

  /** Takes one dispatch-decision lock platform-wide, until `tx` ends. */
  async lockDispatchDecision(tx: SqlTransaction): Promise<void> {
    await tx.query("select pg_advisory_xact_lock(hashtext('batch-dispatch'))::text as locked");
  }

  async clientsWithWaitingJobs(): Promise<string[]> {
    const rows = await this.db.sql.query<{ clientId: string }>(
      `select distinct client_id "clientId" from jobs where status = 'processing' and dispatched_at is null`,
    );
    return rows.map((row) => row.clientId);
  }

  /** A publish that failed: the job waits for the next dispatch (unless a worker started it meanwhile). */
  async undoDispatch(dispatch: JobDispatch): Promise<void> {
    await this.db.sql.query('update jobs set dispatched_at = null where id = $1 and attempt = $2 and started_at is null', [
      dispatch.job_id,
      dispatch.attempt,
    ]);
  }

  /** Every dispatch that never started, under a new attempt (the embedded queue lost them with the process). */
  async redispatchUnstarted(now: Date): Promise<JobDispatch[]> {
    return this.db.sql.query<JobDispatch>(
      "update jobs set attempt = attempt + 1, dispatched_at = $1 where status = 'processing' and started_at is null and dispatched_at is not null returning id as job_id, attempt",
      [now],
    );
  }

  /**
   * Dispatches made before `dispatchedBefore` that no worker has started and the relay has not
   * published under their attempt yet (the row is the dispatch's outbox: decision 0034), oldest
   * first. Reads the in-flight index only.
   */
  async unrelayedDispatches(dispatchedBefore: Date, limit: number): Promise<JobDispatch[]> {
    return this.db.sql.query<JobDispatch>(
      `select id as job_id, attempt from jobs
       where status = 'processing' and dispatched_at is not null and dispatched_at < $1 and started_at is null
         and relayed_attempt is distinct from attempt
       order by dispatched_at limit ${limit}`,
      [dispatchedBefore],
    );
  }

  /** Records that these dispatches were published by the relay (an attempt moved on since is left alone). */
  async markRelayed(dispatches: JobDispatch[]): Promise<void> {
    if (dispatches.length === 0) return;
    await this.db.sql.query(
      `update jobs j set relayed_attempt = d.attempt
       from jsonb_to_recordset($1::jsonb) as d(job_id uuid, attempt int)
       where j.id = d.job_id and j.attempt = d.attempt`,
      [storableJson(dispatches)],
    );
  }

  /** Started jobs whose lease expired before `now`, oldest first, locked (other replicas skip them). */
  async lockExpiredLeases(tx: SqlTransaction, now: Date, limit: number): Promise<LockedJob[]> {
    return tx.query<LockedJob>(
      `select ${LOCKED_COLUMNS('jobs')} from jobs where status = 'processing' and lease_expires_at < $1 order by lease_expires_at limit ${limit} for update skip locked`,
      [now],
    );
  }

  /**
   * A job whose worker stopped reporting, under a new attempt that counts as a retry: dispatched
   * again at once while its run may run (running, or cancelling: jobs in flight finish), else
   * back to waiting (its run or project is paused) until a resume dispatches it.
   */
  async retry(tx: SqlTransaction, jobId: string, now: Date): Promise<JobDispatch & { dispatched: boolean }> {
    const [next] = await tx.query<JobDispatch & { dispatched: boolean }>(
      `update jobs j set attempt = j.attempt + 1, retries_attempted = j.retries_attempted + 1, started_at = null, lease_expires_at = null,
         worker_id = null, reservation_id = null,
         dispatched_at = case when r.state = 'cancelling'
           or (r.state = 'running' and not exists (select 1 from projects p where p.id = j.project_id and p.status <> 'active')) then $2::timestamptz end
       from runs r where j.id = $1 and r.id = j.run_id
       returning j.id as job_id, j.attempt, j.dispatched_at is not null as dispatched`,
      [jobId, now],
    );
    return next;
  }

  /** Dispatches older than `dispatchedBefore` that never started (lost between commit and publish), under a new attempt. */
  async redispatchLost(tx: SqlTransaction, now: Date, dispatchedBefore: Date, limit: number): Promise<JobDispatch[]> {
    return tx.query<JobDispatch>(
      `update jobs set attempt = attempt + 1, dispatched_at = $1 where id in (
         select id from jobs where status = 'processing' and started_at is null and dispatched_at < $2 limit ${limit} for update skip locked
       ) returning id as job_id, attempt`,
      [now, dispatchedBefore],
    );
  }

  /**
   * Starts the job for a worker, in one statement (the migration's claim_job): only the
   * current attempt, only once — or again for the worker that already started it, whose claim reply
   * was lost (a broker outage drops replies in flight; the worker asks again with the same attempt
   * and must not be told `stale` for a job it owns, which left the job to wait out its lease).
   * `reclaimed` says so: its quota check and hold were done then. For a run with a monthly quota it
   * also takes the client's credit lock and either holds the job's cost (`hold.id`, the job's
   * `reservationId` from then on) or, when the month's usage cannot cover it, holds nothing and
   * returns that usage as `overQuota` for the caller to finish the job. Null when that attempt no
   * longer owns the job.
   */
  async claimThen<T>(
    claim: { jobId: string; attempt: number; workerId: string; now: Date; leaseUntil: Date },
    hold: { id: string; until: Date; costs: { simple: number; browser: number } },
    rest: (tx: SqlTransactionScope, claimed: ClaimOutcome | null) => Promise<T>,
  ): Promise<T> {
    // A claim within its quota is the whole transaction (committed by itself: SqlExecutor's
    // transactionOpenedBy); one over its quota goes on, for `rest` to finish the job in it.
    const opening: OpeningStatement = {
      text: CLAIM_JOB_SQL,
      params: [
        claim.jobId,
        claim.attempt,
        claim.workerId,
        claim.now,
        claim.leaseUntil,
        hold.id,
        hold.until,
        hold.costs.simple,
        hold.costs.browser,
      ],
      goesOnWhen: 'overQuota',
    };
    return this.db.sql.transactionOpenedBy<ClaimRow, T>(opening, (tx, [row]) => {
      if (!row) return rest(tx, null);
      const { overQuota, charged, held, month, ...job } = row;
      return rest(tx, { job, overQuota: overQuota ? { charged, held, month } : null });
    });
  }

  /** Ends now the leases of every job `workerId` holds (it died): the next sweep dispatches them again. */
  async expireLeasesOf(workerId: string, now: Date): Promise<number> {
    const expired = await this.db.sql.query(
      "update jobs set lease_expires_at = $2 where worker_id = $1 and status = 'processing' and started_at is not null and lease_expires_at > $2 returning id",
      [workerId, now],
    );
    return expired.length;
  }

  /** Ends now the lease of every job started before `now`: after an embedded restart no worker of before is alive. */
  async expireLeasesStartedBefore(now: Date): Promise<number> {
    const expired = await this.db.sql.query(
      "update jobs set lease_expires_at = $1 where status = 'processing' and started_at < $1 and lease_expires_at > $1 returning id",
      [now],
    );
    return expired.length;
  }

  /** Renews the lease while `attempt` still owns the started job; false tells the worker to let go. */
  async renewLease(jobId: string, attempt: number, until: Date): Promise<boolean> {
    const renewed = await this.db.sql.query(
      "update jobs set lease_expires_at = $3 where id = $1 and attempt = $2 and status = 'processing' and started_at is not null returning id",
      [jobId, attempt, until],
    );
    return renewed.length === 1;
  }

  /**
   * Finishes a job and settles what it leads to, in one statement (the migration's
   * finish_job): the row checked, locked and finished, its result stored, its hold released
   * and its charge recorded under its client's credit lock, its project's credits and its run's
   * counters moved. `attempt`: the attempt that must still run the job (a worker's report: status
   * processing, started, the same attempt), or null when the caller holds the job locked. Returns
   * the row as it was (its hold included) and its run's state, or null when the attempt was fenced
   * off (the sub-select's FOR UPDATE reads the latest version of a row another transaction changed).
   */
  async finishAndSettle(
    tx: SqlTransaction,
    jobId: string,
    attempt: number | null,
    finished: FinishedJob,
    settlement: JobSettlement,
  ): Promise<SettledJob | null> {
    const { text, params } = finishStatement(jobId, attempt, finished, settlement);
    return settledJobOf((await tx.query<SettledRow>(text, params))[0]);
  }

  /**
   * finishAndSettle in a transaction of its own, then `rest` with the settled job: after the
   * statement has committed alone when the job's end leads to nothing more, in the transaction
   * otherwise (its crawl page's webhook, its run's completion: `rest` writes them).
   */
  async finishAndSettleThen<T>(
    jobId: string,
    attempt: number | null,
    finished: FinishedJob,
    settlement: JobSettlement,
    rest: (tx: SqlTransactionScope, settled: SettledJob | null) => Promise<T>,
  ): Promise<T> {
    const opening = { ...finishStatement(jobId, attempt, finished, settlement), goesOnWhen: 'goesOn' };
    return this.db.sql.transactionOpenedBy<SettledRow, T>(opening, (tx, [row]) => rest(tx, settledJobOf(row)));
  }

  /**
   * One statement for all of a run's jobs, copied from the collection's stored requests (so later
   * edits of the collection never touch a started run); seq (the listing's id order) follows the
   * collection's order.
   */
  async insertForRun(tx: SqlTransaction, runId: string, collectionId: string, now: Date): Promise<void> {
    await tx.query(
      `insert into jobs (id, run_id, collection_id, client_id, position, url, custom_id, request, mode, queued_at)
       select gen_random_uuid(), $1, c.id, c.client_id, (e.ord - 1)::int, e.item->>'url', e.item->>'custom_id', e.item->'request',
              case when coalesce((e.item->'request'->>'browser')::boolean, false) then 'browser' else 'simple' end, $3
       from collections c cross join lateral jsonb_array_elements(c.requests) with ordinality as e(item, ord)
       where c.id = $2
       order by e.ord`,
      [runId, collectionId, now],
    );
  }

  /**
   * A batch write's accepted items as jobs of the run, in order after its `firstPosition` jobs
   * (one statement; seq follows the items' order).
   */
  async insertItems(
    tx: SqlTransaction,
    batch: { runId: string; projectId: string; clientId: string; firstPosition: number; now: Date },
    items: Array<{ url: string; custom_id: string | null; request: Record<string, unknown> }>,
  ): Promise<void> {
    await tx.query(
      `insert into jobs (id, run_id, project_id, client_id, position, url, custom_id, request, mode, queued_at)
       select gen_random_uuid(), $1, $2, $3, $4 + (e.ord - 1)::int, e.item->>'url', e.item->>'custom_id', e.item->'request',
              case when coalesce((e.item->'request'->>'browser')::boolean, false) then 'browser' else 'simple' end, $6
       from jsonb_array_elements($5::jsonb) with ordinality as e(item, ord)
       order by e.ord`,
      [batch.runId, batch.projectId, batch.clientId, batch.firstPosition, storableJson(items), batch.now],
    );
  }

  /**
   * A crawl's pages as jobs of its run, with the ids site-discovery chose (one per normalised URL):
   * ids the run already has are left alone, so a write sent again after a crash adds nothing.
   * Returns how many were added.
   */
  async insertCrawlPages(
    tx: SqlTransaction,
    run: { runId: string; clientId: string; firstPosition: number; now: Date },
    pages: Array<{ job_id: string; url: string; request: Record<string, unknown> }>,
  ): Promise<number> {
    if (pages.length === 0) return 0;
    const known = new Set(
      (await tx.query<{ id: string }>('select id from jobs where id = any($1::uuid[])', [pages.map((p) => p.job_id)])).map((r) => r.id),
    );
    const fresh = pages.filter((p) => !known.has(p.job_id));
    if (fresh.length === 0) return 0;
    const inserted = await tx.query<{ id: string }>(
      `insert into jobs (id, run_id, client_id, position, url, request, mode, queued_at)
       select (e.item->>'job_id')::uuid, $1, $2, $3 + (e.ord - 1)::int, e.item->>'url', e.item->'request',
              case when coalesce((e.item->'request'->>'browser')::boolean, false) then 'browser' else 'simple' end, $5
       from jsonb_array_elements($4::jsonb) with ordinality as e(item, ord)
       order by e.ord
       on conflict (id) do nothing
       returning id`,
      [run.runId, run.clientId, run.firstPosition, storableJson(fresh), run.now],
    );
    return inserted.length;
  }

  /** Which of these jobs of the run have ended, and how (a crawl's discovery reads the links of those that succeeded). */
  async endedOf(runId: string, jobIds: string[]): Promise<CrawlPageOutcome[]> {
    if (jobIds.length === 0) return [];
    return this.db.sql.query(
      `select j.id job_id, j.status, coalesce(j.is_success, false) success,
              case when j.status = 'cancelled' and j.error = 'duplicate'
                then (select r.body::jsonb->'duplicate_of' from job_results r where r.job_id = j.id) end duplicate_of
       from jobs j where j.run_id = $1 and j.id = any($2::uuid[]) and j.status <> 'processing'`,
      [runId, jobIds],
    );
  }

  /** Which of `urls` the run already has, with their custom ids (a batch's dedup across writes). */
  async keysOfRun(tx: SqlTransaction, runId: string, urls: string[]): Promise<Array<{ url: string; customId: string | null }>> {
    if (urls.length === 0) return [];
    return tx.query('select url, custom_id "customId" from jobs where run_id = $1 and url = any($2::text[])', [runId, urls]);
  }

  /**
   * Ends every job of the run that has not started: `cancelled`, never charged, its attempt moved
   * on so a dispatch message already queued finds it stale. Returns how many.
   */
  async cancelUnstarted(tx: SqlTransaction, runId: string, now: Date): Promise<number> {
    const rows = await tx.query(
      `update jobs set status = 'cancelled', attempt = attempt + 1, completed_at = $2, error = 'cancelled', message = 'Cancelled before it ran.',
         is_success = false, credits = 0, execution_time_ms = 0
       where run_id = $1 and status = 'processing' and started_at is null returning id`,
      [runId, now],
    );
    return rows.length;
  }

  /**
   * Takes back the dispatches of these runs that no worker has started (a pause): they wait
   * again, and the queued messages find their attempt stale. Jobs already started finish.
   */
  async recallUnstarted(tx: SqlTransaction, runIds: string[]): Promise<number> {
    if (runIds.length === 0) return 0;
    const rows = await tx.query(
      `update jobs set dispatched_at = null, attempt = attempt + 1
       where run_id = any($1::uuid[]) and status = 'processing' and started_at is null and dispatched_at is not null returning id`,
      [runIds],
    );
    return rows.length;
  }

  /** The run's jobs that did not succeed, in insertion order. */
  async failedOfRun(runId: string, within: Pick<SqlTransaction, 'query'> = this.db.sql): Promise<FailedJob[]> {
    return within.query<FailedJob>(
      'select id, url, custom_id "customId", status, error from jobs where run_id = $1 and is_success = false order by seq',
      [runId],
    );
  }

  /**
   * Unfinished jobs by phase, the jobs of running runs waiting for dispatch and how long the
   * oldest of them has waited (seconds): one aggregate over the `processing` rows (index
   * jobs(status, lease_expires_at)), for the metrics.
   */
  async queueFigures(now: Date): Promise<{ waiting: number; dispatched: number; running: number; ready: number; lag: number | null }> {
    const [row] = await this.db.sql.query<{ waiting: number; dispatched: number; running: number; ready: number; lag: number | null }>(
      `select count(*) filter (where j.dispatched_at is null)::int waiting,
              count(*) filter (where j.dispatched_at is not null and j.started_at is null)::int dispatched,
              count(*) filter (where j.started_at is not null)::int running,
              count(*) filter (where j.dispatched_at is null and r.state = 'running')::int ready,
              extract(epoch from ($1::timestamptz - min(j.queued_at) filter (where j.dispatched_at is null and r.state = 'running')))::float8 lag
       from jobs j join runs r on r.id = j.run_id where j.status = 'processing'`,
      [now],
    );
    return row;
  }
}

/** finish_job's statement for a job's end (JobStore.finishAndSettle). */
function finishStatement(
  jobId: string,
  attempt: number | null,
  finished: FinishedJob,
  settlement: JobSettlement,
): { text: string; params: unknown[] } {
  return {
    text: FINISH_JOB_SQL,
    params: [
      jobId,
      attempt,
      finished.status,
      finished.completedAt,
      finished.statusCode,
      finished.message,
      finished.error,
      finished.executionTimeMs,
      finished.blockReason,
      finished.protectionStack,
      finished.ruleHits,
      finished.isSuccess,
      finished.credits,
      JSON.stringify(settlement.body),
      settlement.entryId,
      settlement.mode,
      storableJson(settlement.details),
    ],
  };
}

function settledJobOf(row: SettledRow | undefined): SettledJob | null {
  if (!row) return null;
  const { runKind, runState, lastJob, pageWebhookUrl, goesOn: _, ...job } = row;
  return { job, run: { kind: runKind, state: runState, lastJob, pageWebhookUrl } };
}
