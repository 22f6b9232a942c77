import { loadPlatformConfig } from '@lib/config';
import type { JobDispatch } from '@lib/contracts';
import { InProcessJobQueue } from '@lib/messaging';
import type { DatabaseConnection } from '@lib/persistence';
import { systemClock } from '@lib/runtime';
import { randomUUID } from 'node:crypto';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { JobStore } from '../persistence/jobs.store';
import { JobDispatcher } from './job-dispatcher';

/** Dispatch limits on each database: per client by plan, all clients by BATCH_GLOBAL_CONCURRENCY. */
describe.each(DATABASE_BACKENDS)('JobDispatcher (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  const published: JobDispatch[] = [];
  let dispatcher: JobDispatcher;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'dispatch'));
    const queue = new InProcessJobQueue();
    queue.publish = async (d) => void published.push(d);
    dispatcher = new JobDispatcher(db, queue, systemClock, loadPlatformConfig({ BATCH_GLOBAL_CONCURRENCY: '3' }), new JobStore(db));
  });
  afterAll(async () => close());

  async function runWithJobs(clientId: string, maxConcurrency: number, jobs: number): Promise<string[]> {
    const runId = randomUUID();
    await db.sql.query(
      "insert into runs (id, collection_id, client_id, status, total_requests, max_concurrency, created_at) values ($1, $2, $3, 'in_progress', $4, $5, now())",
      [runId, randomUUID(), clientId, jobs, maxConcurrency],
    );
    const ids: string[] = [];
    for (let i = 0; i < jobs; i += 1) {
      const id = randomUUID();
      ids.push(id);
      await db.sql.query(
        "insert into jobs (id, run_id, collection_id, client_id, position, url, request, mode, queued_at) values ($1, $2, $3, $4, $5, 'https://example.com/', '{}', 'simple', now())",
        [id, runId, randomUUID(), clientId, i],
      );
    }
    return ids;
  }

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

  it('undoes a dispatch whose publish failed, so the next pass sends it', async () => {
    const c = await runWithJobs('client-c', 1, 1);
    await db.sql.query("update jobs set status = 'completed' where client_id <> 'client-c'");
    const queue = new InProcessJobQueue();
    queue.publish = async () => Promise.reject(new Error('broker down'));
    const failing = new JobDispatcher(db, queue, systemClock, loadPlatformConfig({ BATCH_GLOBAL_CONCURRENCY: '3' }), new JobStore(db));
    expect(await failing.dispatchFor('client-c')).toBe(1);
    const [row] = await db.sql.query<{ dispatched_at: Date | null }>('select dispatched_at from jobs where id = $1', [c[0]]);
    expect(row.dispatched_at).toBeNull();
    expect(await dispatcher.dispatchFor('client-c')).toBe(1);
    expect(published[published.length - 1].job_id).toBe(c[0]);
  });
});
