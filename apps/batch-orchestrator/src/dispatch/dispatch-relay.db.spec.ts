import type { JobDispatch } from '@lib/contracts';
import { InProcessJobQueue, type JobQueue, type QueuedJob } from '@lib/messaging';
import type { DatabaseConnection } from '@lib/persistence';
import { randomUUID } from 'node:crypto';
import { MovableClock } from '../../../../test/support/movable-clock';
import { insertRunWithJobs } from '../../../../test/support/batch-rows';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { JobStore } from '../persistence/jobs.store';
import { DISPATCH_RELAY_GRACE_MS, DispatchRelay } from './dispatch-relay';

/**
 * The job row is its dispatch's outbox (decision 0034): a dispatch committed by a process that died
 * before publishing it is published by the relay a moment later, once per attempt; a dispatch that
 * was published is dropped by the queue as a duplicate, so no job runs twice.
 */
describe.each(DATABASE_BACKENDS)('DispatchRelay (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  let store: JobStore;
  const clock = new MovableClock('2026-12-02T10:00:00Z');

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'relay'));
    store = new JobStore(db);
  });
  afterAll(async () => close());
  beforeEach(async () => {
    await db.sql.query("update jobs set status = 'completed', completed_at = now() where status = 'processing'");
  });

  async function runWithJobs(jobs: number): Promise<{ clientId: string; ids: string[] }> {
    const clientId = `relay-${randomUUID().slice(0, 8)}`;
    return { clientId, ids: await insertRunWithJobs(db, clientId, 50, jobs) };
  }

  /** A dispatcher that committed and died before publishing: the rows say dispatched, no message exists. */
  const dispatchAndDie = (clientId: string) => db.sql.transaction((tx) => store.markDispatched(tx, clientId, 100, clock.now()));

  it('publishes a committed dispatch that was never published once the grace has passed, once per attempt', async () => {
    const { clientId, ids } = await runWithJobs(3);
    const published: JobDispatch[] = [];
    const relay = new DispatchRelay({ publish: async (d: JobDispatch) => void published.push(d) } as unknown as JobQueue, clock, store);
    const lost = await dispatchAndDie(clientId);
    expect(lost.dispatches).toHaveLength(3);

    clock.advance(DISPATCH_RELAY_GRACE_MS - 500);
    expect(await relay.relay()).toBe(0);
    clock.advance(1000);
    expect(await relay.relay()).toBe(3);
    expect(published.map((d) => d.job_id).sort()).toEqual([...ids].sort());
    expect(published.every((d) => d.attempt === 1)).toBe(true);
    // Relayed once: the next passes leave them alone, started or not.
    expect(await relay.relay()).toBe(0);
    // A worker starts one; the sweeper takes another back under a new attempt: that attempt is relayed.
    await db.sql.query('update jobs set started_at = now() where id = $1', [ids[0]]);
    await db.sql.query('update jobs set attempt = attempt + 1, dispatched_at = $2 where id = $1', [ids[1], clock.now()]);
    clock.advance(DISPATCH_RELAY_GRACE_MS + 1);
    expect(await relay.relay()).toBe(1);
    expect(published[published.length - 1]).toEqual({ job_id: ids[1], attempt: 2 });
  });

  it('leaves unmarked what it could not publish, and publishes it on the next pass', async () => {
    const { clientId } = await runWithJobs(2);
    await dispatchAndDie(clientId);
    clock.advance(DISPATCH_RELAY_GRACE_MS + 1);
    let brokerUp = false;
    const published: JobDispatch[] = [];
    const queue = {
      publish: async (d: JobDispatch) => {
        if (!brokerUp) throw new Error('broker down');
        published.push(d);
      },
    } as unknown as JobQueue;
    const relay = new DispatchRelay(queue, clock, store);
    expect(await relay.relay()).toBe(0);
    brokerUp = true;
    expect(await relay.relay()).toBe(2);
    expect(published).toHaveLength(2);
  });

  it('never makes a job run twice: a copy of a dispatch on the queue is dropped, and each job is handed out once', async () => {
    const { clientId, ids } = await runWithJobs(4);
    const queue = new InProcessJobQueue();
    // Two of the four were published before the dispatcher died; the relay publishes all four.
    const { dispatches } = await dispatchAndDie(clientId);
    await queue.publish(dispatches[0]);
    await queue.publish(dispatches[1]);
    clock.advance(DISPATCH_RELAY_GRACE_MS + 1);
    expect(await new DispatchRelay(queue, clock, store).relay()).toBe(4);
    const handed: string[] = [];
    const consumer = queue.consume(8, async (job: QueuedJob) => {
      handed.push(job.dispatch.job_id);
      job.ack();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await consumer.stop(1000);
    expect(handed.sort()).toEqual([...ids].sort());
  });
});
