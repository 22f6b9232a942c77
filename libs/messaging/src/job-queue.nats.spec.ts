import { natsServerAvailable, type PrivateServer, startPrivateNats } from '../../../test/support/private-servers';
import { JetStreamJobQueue, type QueuedJob } from './job-queue';

const DELIVERY_LEASE_MS = 1500;

const dispatch = (jobId: string) => ({ job_id: jobId, attempt: 1, run_id: 'run', client_id: 'client' }) as never;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for a condition within a bound, and says which one did not come instead of running into the test's timeout. */
async function until(what: string, done: () => boolean, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await sleep(20);
  }
}

/**
 * The queue's delivery lease: a worker keeps a message for as long as its handler runs, however
 * long that is, and a worker that goes away holding messages (whether or not a database row shows
 * it) loses them to another worker within one delivery lease, not one job lease.
 */
(natsServerAvailable() ? describe : describe.skip)('JetStreamJobQueue delivery lease', () => {
  let nats: PrivateServer;
  const queues: JetStreamJobQueue[] = [];
  const queue = () => {
    const q = new JetStreamJobQueue(nats.url, 'lease-test', DELIVERY_LEASE_MS);
    queues.push(q);
    return q;
  };

  beforeEach(async () => {
    nats = await startPrivateNats('job-queue');
  });
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.close()));
    await nats.dispose();
  });

  it('drops a dispatch published again (the dispatch relay): one message per job and attempt', async () => {
    const handed: string[] = [];
    const publisher = queue();
    await publisher.publish(dispatch('job-once'));
    await publisher.publish(dispatch('job-once'));
    await queue().publish(dispatch('job-once'));
    const consumer = queue().consume(4, async (job) => {
      handed.push(job.dispatch.job_id);
      job.ack();
    });
    await until('the dispatch handed to the consumer', () => handed.length > 0, 10_000);
    await sleep(1000);
    await consumer.stop(1000);
    expect(handed).toEqual(['job-once']);
  }, 30_000);

  it('leaves a message with the worker whose handler runs for several leases', async () => {
    const deliveries: Array<{ worker: string; count: number }> = [];
    const handler = (worker: string) => async (job: QueuedJob) => {
      deliveries.push({ worker, count: job.deliveryCount });
      if (worker === 'slow') {
        await sleep(4 * DELIVERY_LEASE_MS);
        job.ack();
      }
    };
    const slow = queue().consume(1, handler('slow'));
    await queue().publish(dispatch('job-long'));
    await until('the dispatch handed to the slow worker', () => deliveries.length > 0, 10_000);
    // A second worker idles beside it the whole time: nothing comes back for it to take.
    const idle = queue().consume(1, handler('idle'));
    await sleep(5 * DELIVERY_LEASE_MS);
    expect(deliveries).toEqual([{ worker: 'slow', count: 1 }]);
    await Promise.all([slow.stop(1000), idle.stop(1000)]);
  }, 30_000);

  it('gives the messages of a worker that went away to another within one lease', async () => {
    const gone = queue();
    const received: string[] = [];
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Holds both and answers nothing until the end: one as if being claimed, one as if only fetched.
    const goneConsumer = gone.consume(2, async (job) => {
      received.push(job.dispatch.job_id);
      await released;
    });
    const publisher = queue();
    await publisher.publish(dispatch('job-a'));
    await publisher.publish(dispatch('job-b'));
    await until('both dispatches held by the worker that goes away', () => received.length >= 2, 10_000);

    const closing = Date.now();
    await gone.close();
    expect(Date.now() - closing).toBeLessThan(6000);
    const wentAwayAt = Date.now();
    const redelivered = new Map<string, { count: number; afterMs: number }>();
    const taker = queue().consume(2, async (job) => {
      redelivered.set(job.dispatch.job_id, { count: job.deliveryCount, afterMs: Date.now() - wentAwayAt });
      job.ack();
    });
    await until('both dispatches redelivered to the other worker', () => redelivered.size >= 2, 15_000);

    expect([...redelivered.keys()].sort()).toEqual(['job-a', 'job-b']);
    // The one that went away stays gone: it gave up its loop and opened no connection behind close().
    expect(received).toHaveLength(2);
    for (const { count, afterMs } of redelivered.values()) {
      expect(count).toBe(2);
      // One lease plus a fetch's wait; the job lease (30 s by default) would fail this.
      expect(afterMs).toBeLessThan(DELIVERY_LEASE_MS + 3000);
    }
    release();
    await Promise.all([taker.stop(1000), goneConsumer.stop(1000)]);
  }, 40_000);

  it('closes for good: a consumer of a closed queue ends its loop and opens no new connection', async () => {
    const closing = new JetStreamJobQueue(nats.url, 'closing-test', DELIVERY_LEASE_MS);
    queues.push(closing);
    // Idle, so it is in a pull request when the queue closes.
    const consumer = closing.consume(2, async (job) => job.ack());
    const connectedAs = async () => {
      const response = await fetch(`${nats.monitorUrl}/connz`);
      const body = (await response.json()) as { connections?: Array<{ name?: string }> };
      return (body.connections ?? []).map((c) => c.name ?? '').filter((name) => name.startsWith('closing-test'));
    };
    let connected = await connectedAs();
    for (let i = 0; connected.length === 0 && i < 200; i++) {
      await sleep(50);
      connected = await connectedAs();
    }
    expect(connected).toHaveLength(1);
    await sleep(300);

    await closing.close();
    // Longer than the loop's retry pause and a pull request's expiry together.
    await sleep(2500);
    expect(await connectedAs()).toEqual([]);
    await expect(closing.publish(dispatch('job-after-close'))).rejects.toThrow('job queue closed');
    const stopping = Date.now();
    await consumer.stop(5000);
    expect(Date.now() - stopping).toBeLessThan(1000);
  }, 30_000);
});
