import { loadPlatformConfig } from '@lib/config';
import type { JobDispatch } from '@lib/contracts';
import { InProcessJobQueue } from '@lib/messaging';
import type { DatabaseConnection } from '@lib/persistence';
import { systemClock } from '@lib/runtime';
import { randomUUID } from 'node:crypto';
import { insertRunWithJobs } from '../../../../test/support/batch-rows';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { JobStore } from '../persistence/jobs.store';
import { JobDispatcher } from './job-dispatcher';

/**
 * Dispatch limits on each database: per client by plan, all clients by JOB_GLOBAL_CONCURRENCY,
 * and (decision 0014) only runs in state running, only projects that are active, within a
 * project's max_concurrent_jobs and its monthly_credit_cap.
 */
describe.each(DATABASE_BACKENDS)('JobDispatcher (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  const published: JobDispatch[] = [];
  let dispatcher: JobDispatcher;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'dispatch'));
    const queue = new InProcessJobQueue();
    queue.publish = async (d) => void published.push(d);
    dispatcher = new JobDispatcher(db, queue, systemClock, loadPlatformConfig({ JOB_GLOBAL_CONCURRENCY: '3' }), new JobStore(db));
  });
  afterAll(async () => close());

  const runWithJobs = (clientId: string, maxConcurrency: number, jobs: number) => insertRunWithJobs(db, clientId, maxConcurrency, jobs);

  it("fills a client's places in insertion order, then stops at the global limit", async () => {
    const a = await runWithJobs('client-a', 2, 4);
    const b = await runWithJobs('client-b', 5, 4);
    expect(await dispatcher.dispatchFor('client-a')).toBe(2);
    expect(published.map((d) => d.job_id)).toEqual(a.slice(0, 2));
    expect(await dispatcher.dispatchFor('client-a')).toBe(0); // its plan allows 2 in flight
    expect(await dispatcher.dispatchFor('client-b')).toBe(1); // 3 in flight platform-wide
    expect(published.map((d) => d.job_id)).toEqual([...a.slice(0, 2), b[0]]);

    // One of client-a's jobs ends: the free place is the platform's, taken by whoever asks first.
    await db.sql.query("update jobs set status = 'completed', completed_at = now() where id = $1", [a[0]]);
    await dispatcher.dispatchWaiting();
    expect(published).toHaveLength(4);
    expect(published.every((d) => d.attempt === 1)).toBe(true);
  });

  // The class: a pass's cost must not grow with the jobs waiting (a run makes one pass per job, so
  // it would grow with the square of the run). Rows read are counted from Postgres's own table
  // statistics, which one embedded session can flush on demand (a pooled Postgres connection
  // flushes its own on its own clock); the SQL is the same on both.
  (backend === 'embedded' ? it : it.skip)('reads the jobs in flight on a pass, never the jobs waiting', async () => {
    const wide = new JobDispatcher(
      db,
      new InProcessJobQueue(),
      systemClock,
      loadPlatformConfig({ JOB_GLOBAL_CONCURRENCY: '100' }),
      new JobStore(db),
    );
    await db.sql.query("update jobs set status = 'completed', completed_at = now() where status = 'processing'");
    const runId = randomUUID();
    await db.sql.query(
      "insert into runs (id, collection_id, client_id, status, total_requests, max_concurrency, created_at) values ($1, $2, 'client-many', 'in_progress', 3000, 8, now())",
      [runId, randomUUID()],
    );
    await db.sql.query(
      `insert into jobs (id, run_id, collection_id, client_id, position, url, request, mode, queued_at)
       select gen_random_uuid(), $1, $2, 'client-many', g, 'https://example.com/' || g, '{}', 'simple', now() from generate_series(0, 2999) g`,
      [runId, randomUUID()],
    );
    expect(await wide.dispatchFor('client-many')).toBe(8);
    const rowsRead = async () => {
      await db.sql.query('select pg_stat_force_next_flush()');
      const [row] = await db.sql.query<{ read: string }>(
        "select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text as read from pg_stat_user_tables where relname = 'jobs'",
      );
      return Number(row.read);
    };
    const before = await rowsRead();
    // Most passes find no free place: 8 of 8 in flight, 2,992 waiting.
    expect(await wide.dispatchFor('client-many')).toBe(0);
    const read = (await rowsRead()) - before;
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(100);
  });

  it('undoes a dispatch whose publish failed, so the next pass sends it', async () => {
    const c = await runWithJobs('client-c', 1, 1);
    await db.sql.query("update jobs set status = 'completed' where client_id <> 'client-c'");
    const queue = new InProcessJobQueue();
    queue.publish = async () => Promise.reject(new Error('broker down'));
    const failing = new JobDispatcher(db, queue, systemClock, loadPlatformConfig({ JOB_GLOBAL_CONCURRENCY: '3' }), new JobStore(db));
    expect(await failing.dispatchFor('client-c')).toBe(1);
    const [row] = await db.sql.query<{ dispatched_at: Date | null }>('select dispatched_at from jobs where id = $1', [c[0]]);
    expect(row.dispatched_at).toBeNull();
    expect(await dispatcher.dispatchFor('client-c')).toBe(1);
    expect(published[published.length - 1].job_id).toBe(c[0]);
  });

  // The figure the dispatcher spaces its passes by (DISPATCH_PASS_SPACING_MS): the client's jobs on
  // the queue that no worker has started, counting the ones this pass sent; other clients' are not.
  it("reports the client's jobs on the queue not yet started, this pass's included", async () => {
    await db.sql.query("update jobs set status = 'completed', completed_at = now() where status = 'processing'");
    const store = new JobStore(db);
    const ids = await runWithJobs('client-q', 4, 7);
    await runWithJobs('client-r', 4, 2);
    const pass = () => db.sql.transaction((tx) => store.markDispatched(tx, 'client-q', 100, new Date()));
    const r = await db.sql.transaction((tx) => store.markDispatched(tx, 'client-r', 100, new Date()));
    expect([r.dispatches.length, r.queued]).toEqual([2, 2]);
    const first = await pass();
    expect(first.dispatches.map((d) => d.job_id)).toEqual(ids.slice(0, 4));
    expect(first.queued).toBe(4);
    // A worker starts two of them, one of those ends: one place frees, three are still unstarted.
    await db.sql.query('update jobs set started_at = now() where id = any($1::uuid[])', [ids.slice(0, 2)]);
    await db.sql.query("update jobs set status = 'completed', completed_at = now() where id = $1", [ids[0]]);
    const second = await pass();
    expect(second.dispatches.map((d) => d.job_id)).toEqual([ids[4]]);
    expect(second.queued).toBe(3);
    // No free place: nothing dispatched, and no figure (the statement returns no row).
    expect(await pass()).toEqual({ dispatches: [], queued: null });
  });

  describe('run state and projects', () => {
    const config = loadPlatformConfig({ JOB_GLOBAL_CONCURRENCY: '100' });
    let wide: JobDispatcher;
    beforeAll(async () => {
      await db.sql.query("update jobs set status = 'completed', completed_at = now()");
      wide = new JobDispatcher(
        db,
        { publish: async () => undefined } as unknown as InProcessJobQueue,
        systemClock,
        config,
        new JobStore(db),
      );
    });

    async function project(clientId: string, settings: { status?: string; cap?: number | null; slots?: number | null; used?: number }) {
      const id = randomUUID();
      await db.sql.query(
        `insert into projects (id, client_id, name, status, monthly_credit_cap, max_concurrent_jobs, credits_month, credits_used, created_at, updated_at)
         values ($1, $2, 'p', $3, $4, $5, to_char(now() at time zone 'UTC', 'YYYY-MM'), $6, now(), now())`,
        [id, clientId, settings.status ?? 'active', settings.cap ?? null, settings.slots ?? null, settings.used ?? 0],
      );
      return id;
    }

    async function batch(clientId: string, projectId: string, state: string, modes: Array<'simple' | 'browser'>): Promise<string[]> {
      const runId = randomUUID();
      await db.sql.query(
        "insert into runs (id, kind, project_id, client_id, status, state, total_requests, max_concurrency, created_at) values ($1, 'batch', $2, $3, 'in_progress', $4, $5, 50, now())",
        [runId, projectId, clientId, state, modes.length],
      );
      const ids: string[] = [];
      for (const [i, mode] of modes.entries()) {
        const id = randomUUID();
        ids.push(id);
        await db.sql.query(
          "insert into jobs (id, run_id, project_id, client_id, position, url, request, mode, queued_at) values ($1, $2, $3, $4, $5, 'https://example.com/', '{}', $6, now())",
          [id, runId, projectId, clientId, i, mode],
        );
      }
      return ids;
    }

    const dispatched = async (ids: string[]) =>
      (await db.sql.query<{ id: string }>('select id from jobs where id = any($1::uuid[]) and dispatched_at is not null', [ids])).map(
        (r) => r.id,
      );

    it.each(['open', 'paused', 'cancelling', 'completed', 'cancelled'])('dispatches no job of a batch in state %s', async (state) => {
      const ids = await batch(`state-${state}`, await project(`state-${state}`, {}), state, ['simple', 'simple']);
      expect(await wide.dispatchFor(`state-${state}`)).toBe(0);
      expect(await dispatched(ids)).toEqual([]);
    });

    it('dispatches nothing of a paused or closed project, and everything of an active one', async () => {
      const paused = await batch('proj-status', await project('proj-status', { status: 'paused' }), 'running', ['simple']);
      const closed = await batch('proj-status', await project('proj-status', { status: 'closed' }), 'running', ['simple']);
      const active = await batch('proj-status', await project('proj-status', {}), 'running', ['simple', 'simple']);
      expect(await wide.dispatchFor('proj-status')).toBe(2);
      expect(await dispatched([...paused, ...closed, ...active])).toEqual(expect.arrayContaining(active));
      expect(await dispatched([...paused, ...closed])).toEqual([]);
    });

    it("keeps a project's jobs in flight within max_concurrent_jobs, across its batches", async () => {
      const p = await project('proj-slots', { slots: 3 });
      const one = await batch('proj-slots', p, 'running', ['simple', 'simple']);
      const two = await batch('proj-slots', p, 'running', ['simple', 'simple']);
      expect(await wide.dispatchFor('proj-slots')).toBe(3);
      expect(await dispatched([...one, ...two])).toEqual(expect.arrayContaining([...one, two[0]]));
      await db.sql.query("update jobs set status = 'completed', completed_at = now() where id = $1", [one[0]]);
      expect(await wide.dispatchFor('proj-slots')).toBe(1);
      expect(await wide.dispatchFor('proj-slots')).toBe(0);
    });

    it("stops at the project's monthly credit cap, counting used credits and the most its jobs in flight can cost", async () => {
      // Cap 10, 3 used this month: 7 left. In order: simple (1), browser (5) fit = 6; the next browser (5) does not.
      const p = await project('proj-cap', { cap: 10, used: 3 });
      const ids = await batch('proj-cap', p, 'running', ['simple', 'browser', 'browser', 'simple']);
      expect(await wide.dispatchFor('proj-cap')).toBe(2);
      expect((await dispatched(ids)).sort()).toEqual(ids.slice(0, 2).sort());
      // Insertion order is kept: the cheap job behind the blocked browser job waits too.
      expect(await wide.dispatchFor('proj-cap')).toBe(0);
      // The browser job finished uncharged (the target failed): its reserve comes back. 3 used + 1 in
      // flight leave 6: the browser job (5) and the simple one after it (6 in all) both fit now.
      await db.sql.query("update jobs set status = 'failed', completed_at = now() where id = $1", [ids[1]]);
      expect(await wide.dispatchFor('proj-cap')).toBe(2);
      expect((await dispatched(ids.slice(2))).sort()).toEqual(ids.slice(2).sort());
      // A charge moves the project's month: with 9 used, nothing more fits even once everything ends.
      await db.sql.query("update jobs set status = 'completed', completed_at = now() where id = any($1::uuid[])", [ids]);
      await db.sql.query('update projects set credits_used = 9 where id = $1', [p]);
      const more = await batch('proj-cap', p, 'running', ['browser']);
      expect(await wide.dispatchFor('proj-cap')).toBe(0);
      expect(await dispatched(more)).toEqual([]);
    });

    it("starts a new month's budget when the stored month has passed", async () => {
      const p = await project('proj-month', { cap: 2, used: 2 });
      await db.sql.query("update projects set credits_month = '2000-01' where id = $1", [p]);
      const ids = await batch('proj-month', p, 'running', ['simple', 'simple', 'simple']);
      expect(await wide.dispatchFor('proj-month')).toBe(2);
      expect(await dispatched(ids)).toHaveLength(2);
    });
  });
});
