import type { DatabaseConnection } from '@lib/persistence';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { type FinishedJob, type JobSettlement, JobStore } from './jobs.store';

/**
 * A job finishes and settles in one statement (JobStore.finishAndSettle): for a worker's report,
 * only the attempt that runs it — status processing, started, the same attempt — and every other
 * report changes nothing at all. The row comes back as it was, its credit hold included; the hold is
 * released, the result stored exactly as the orchestrator used to write it, the charge recorded
 * once with its run and job, and the run's counters moved.
 */
describe.each(DATABASE_BACKENDS)('JobStore.finishAndSettle (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  let jobs: JobStore;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'finish_settle'));
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
  const settlement: JobSettlement = {
    body: { html: '<p>ok</p>', markdown: null, statusCode: 200, message: 'ok' },
    entryId: '',
    mode: 'simple',
    details: { domain: 'example.com', status_code: 200, block_reason: null, proxy: null, attempts: 1, success: true },
  };
  const settle = (id: string, attempt: number | null, body: Record<string, unknown> = settlement.body) =>
    db.sql.transaction((tx) => jobs.finishAndSettle(tx, id, attempt, finished, { ...settlement, body, entryId: randomUUID() }));

  /** A job of a one-job run, started by attempt 2 with a credit hold; `change` alters the row first. */
  async function runningJob(change = '', job: { url: string; customId: string | null } = { url: 'https://example.com/', customId: 'c-1' }) {
    const runId = randomUUID();
    const id = randomUUID();
    const reservationId = randomUUID();
    await db.sql.query(
      "insert into runs (id, collection_id, client_id, status, total_requests, max_concurrency, created_at) values ($1, $2, 'finish-settle', 'in_progress', 1, 1, now())",
      [runId, randomUUID()],
    );
    await db.sql.query(
      "insert into credit_reservations (id, client_id, month, credits, expires_at, created_at) values ($1, 'finish-settle', '2026-11', 1, now() + interval '1 hour', now())",
      [reservationId],
    );
    await db.sql.query(
      `insert into jobs (id, run_id, collection_id, client_id, position, url, custom_id, request, mode, queued_at, dispatched_at, started_at, attempt, reservation_id, lease_expires_at)
       values ($1, $2, $3, 'finish-settle', 0, $5, $6, '{}', 'simple', now(), now(), now(), 2, $4, now() + interval '30 seconds')`,
      [id, runId, randomUUID(), reservationId, job.url, job.customId],
    );
    if (change) await db.sql.query(`update jobs set ${change} where id = $1`, [id]);
    return { id, runId, reservationId };
  }

  /** Everything a settlement touches besides the job row. */
  const settledOf = async (id: string, runId: string, reservationId: string) => ({
    result:
      (await db.sql.query<{ body: string; size_bytes: number }>('select body, size_bytes from job_results where job_id = $1', [id]))[0] ??
      null,
    entries: await db.sql.query<{ credits: number; mode: string; details: Record<string, unknown>; month: string }>(
      'select credits, mode, details, month from credit_ledger_entries where charge_key = $1',
      [`batch-job:${id}`],
    ),
    held: (await db.sql.query('select 1 from credit_reservations where id = $1', [reservationId])).length,
    run: (
      await db.sql.query<Record<string, number>>(
        'select success_requests, failed_requests, timeout_requests, credits_charged from runs where id = $1',
        [runId],
      )
    )[0],
  });

  const rowOf = async (id: string) =>
    (
      await db.sql.query<Record<string, unknown>>(
        'select status, attempt, reservation_id, lease_expires_at is null as lease_ended, status_code, is_success, credits, protection_stack, rule_hits from jobs where id = $1',
        [id],
      )
    )[0];

  it('finishes the job for the attempt that runs it and returns the row as it was, its hold included', async () => {
    const { id, runId, reservationId } = await runningJob();
    const settled = await settle(id, 2);
    expect(settled!.run).toEqual({ kind: 'collection', state: 'running', lastJob: true, pageWebhookUrl: null });
    const job = settled!.job;
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
    expect(await settledOf(id, runId, reservationId)).toEqual({
      result: {
        body: JSON.stringify({ ...settlement.body, url: 'https://example.com/', custom_id: 'c-1', status: 'completed' }),
        size_bytes: expect.any(Number),
      },
      entries: [{ credits: 1, mode: 'simple', month: '2026-11', details: { ...settlement.details, run_id: runId, job_id: id } }],
      held: 0,
      run: { success_requests: 1, failed_requests: 0, timeout_requests: 0, credits_charged: 1 },
    });
  });

  it('finishes a job the caller holds locked whatever its attempt, and counts a timeout as one', async () => {
    const { id, runId, reservationId } = await runningJob('started_at = null');
    const settled = await db.sql.transaction((tx) =>
      jobs.finishAndSettle(
        tx,
        id,
        null,
        { ...finished, status: 'timeout', isSuccess: false, credits: 0 },
        { ...settlement, entryId: randomUUID() },
      ),
    );
    expect(settled!.job).toMatchObject({ id, reservationId, status: 'processing' });
    const after = await settledOf(id, runId, reservationId);
    expect(after).toMatchObject({
      entries: [],
      held: 0,
      run: { success_requests: 0, failed_requests: 0, timeout_requests: 1, credits_charged: 0 },
    });
    expect(JSON.parse(after.result!.body)).toMatchObject({ status: 'timeout' });
  });

  it('stores the body byte for byte as JSON.stringify of the body with url, custom_id and status last, for any URL and custom id', async () => {
    // Any text a row can hold (a NUL or a lone surrogate never reaches one), escapes included.
    const text = fc.string({
      unit: fc.oneof(
        fc.constantFrom('"', '\\', '/', '\n', '\t', '\u0001', '\u001f', '\u2028', '\u007f'),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
      ),
      maxLength: 40,
    });
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.option(text, { nil: null }),
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !['url', 'custom_id', 'status'].includes(k)),
          text,
          { maxKeys: 3 },
        ),
        async (url, customId, body) => {
          const { id, runId, reservationId } = await runningJob('', { url, customId });
          await settle(id, 2, body);
          const { result } = await settledOf(id, runId, reservationId);
          const expected = JSON.stringify({ ...body, url, custom_id: customId, status: 'completed' });
          expect(result).toEqual({ body: expected, size_bytes: Buffer.byteLength(expected) });
        },
      ),
      { numRuns: 60 },
    );
  });

  it.each([
    ['an older attempt', '', 1],
    ['a newer attempt', '', 3],
    ['a job no worker has started', 'started_at = null', 2],
    ['a finished job', "status = 'timeout', completed_at = now()", 2],
    ['a job dispatched again', 'attempt = 3, started_at = null', 2],
  ])('changes nothing for %s', async (_, change, attempt) => {
    const { id, runId, reservationId } = await runningJob(change);
    const before = await rowOf(id);
    const settledBefore = await settledOf(id, runId, reservationId);
    expect(await settle(id, attempt)).toBeNull();
    expect(await rowOf(id)).toEqual(before);
    expect(await settledOf(id, runId, reservationId)).toEqual(settledBefore);
  });

  it('lets exactly one of two reports of the same attempt finish the job, whichever commits first', async () => {
    const { id } = await runningJob();
    const outcomes = await Promise.all(
      [0, 1].map(() =>
        db.sql.transaction(async (tx) => {
          const job = await jobs.finishAndSettle(tx, id, 2, finished, { ...settlement, entryId: randomUUID() });
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
