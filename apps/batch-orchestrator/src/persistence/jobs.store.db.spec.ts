import type { DatabaseConnection } from '@lib/persistence';
import { randomUUID } from 'node:crypto';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { type FinishedJob, JobStore } from './jobs.store';

/**
 * A worker's report finishes its job in one statement (JobStore.finishOwned): only the attempt that
 * runs it — status processing, started, the same attempt — and the row comes back as it was, its
 * credit hold included, for the completion to release. Every other report changes nothing.
 */
describe.each(DATABASE_BACKENDS)('JobStore.finishOwned (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  let jobs: JobStore;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'finish_owned'));
    jobs = new JobStore(db);
  });
  afterAll(async () => close());

  const finished: FinishedJob = {
    status: 'completed',
    completedAt: new Date('2026-11-29T12:00:00Z'),
    statusCode: 200,
    message: 'ok',
    error: null,
    executionTimeMs: 12,
    blockReason: null,
    protectionStack: ['cloudflare'],
    ruleHits: ['r1'],
    isSuccess: true,
    credits: 1,
  };

  /** A job started by attempt 2 with a credit hold; `change` alters the row first. */
  async function runningJob(change = ''): Promise<{ id: string; reservationId: string }> {
    const runId = randomUUID();
    const id = randomUUID();
    const reservationId = randomUUID();
    await db.sql.query(
      "insert into runs (id, collection_id, client_id, status, total_requests, max_concurrency, created_at) values ($1, $2, 'finish-owned', 'in_progress', 1, 1, now())",
      [runId, randomUUID()],
    );
    await db.sql.query(
      `insert into jobs (id, run_id, collection_id, client_id, position, url, custom_id, request, mode, queued_at, dispatched_at, started_at, attempt, reservation_id, lease_expires_at)
       values ($1, $2, $3, 'finish-owned', 0, 'https://example.com/', 'c-1', '{}', 'simple', now(), now(), now(), 2, $4, now() + interval '30 seconds')`,
      [id, runId, randomUUID(), reservationId],
    );
    if (change) await db.sql.query(`update jobs set ${change} where id = $1`, [id]);
    return { id, reservationId };
  }

  const rowOf = async (id: string) =>
    (
      await db.sql.query<Record<string, unknown>>(
        'select status, attempt, reservation_id, lease_expires_at is null as lease_ended, status_code, is_success, credits, protection_stack, rule_hits from jobs where id = $1',
        [id],
      )
    )[0];

  it('finishes the job for the attempt that runs it and returns the row as it was, its hold included', async () => {
    const { id, reservationId } = await runningJob();
    const job = await db.sql.transaction((tx) => jobs.finishOwned(tx, id, 2, finished));
    expect(job).toMatchObject({
      id,
      status: 'processing',
      attempt: 2,
      reservationId,
      url: 'https://example.com/',
      customId: 'c-1',
      mode: 'simple',
    });
    expect(job!.startedAt).toBeInstanceOf(Date);
    expect(await rowOf(id)).toEqual({
      status: 'completed',
      attempt: 2,
      reservation_id: null,
      lease_ended: true,
      status_code: 200,
      is_success: true,
      credits: 1,
      protection_stack: ['cloudflare'],
      rule_hits: ['r1'],
    });
  });

  it.each([
    ['an older attempt', '', 1],
    ['a newer attempt', '', 3],
    ['a job no worker has started', 'started_at = null', 2],
    ['a finished job', "status = 'timeout', completed_at = now()", 2],
    ['a job dispatched again', 'attempt = 3, started_at = null', 2],
  ])('changes nothing for %s', async (_, change, attempt) => {
    const { id } = await runningJob(change);
    const before = await rowOf(id);
    expect(await db.sql.transaction((tx) => jobs.finishOwned(tx, id, attempt, finished))).toBeNull();
    expect(await rowOf(id)).toEqual(before);
  });

  it('lets exactly one of two reports of the same attempt finish the job, whichever commits first', async () => {
    const { id } = await runningJob();
    const outcomes = await Promise.all(
      [0, 1].map(() =>
        db.sql.transaction(async (tx) => {
          const job = await jobs.finishOwned(tx, id, 2, finished);
          // On Postgres the report that finished stays open until the other one waits for its
          // lock, so that one meets the lock, not the result. (The embedded database runs one
          // transaction at a time: the other report starts after this one ends.)
          const sawWaiter = backend === 'postgres' && job !== null ? await anotherStatementWaitsForALock() : null;
          return { job, sawWaiter };
        }),
      ),
    );
    expect(outcomes.filter((o) => o.job !== null).map((o) => o.sawWaiter)).toEqual([backend === 'postgres' ? true : null]);
    expect((await rowOf(id)).status).toBe('completed');
  });

  async function anotherStatementWaitsForALock(): Promise<boolean> {
    for (let tries = 0; tries < 200; tries++) {
      const [row] = await db.sql.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      if (row.n > 0) return true;
      await new Promise((r) => setTimeout(r, 10));
    }
    return false;
  }
});
