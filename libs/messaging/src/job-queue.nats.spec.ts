import { natsServerAvailable, type PrivateServer, startPrivateNats } from '../../../test/support/private-servers';
import { JetStreamJobQueue, type QueuedJob } from './job-queue';

const DELIVERY_LEASE_MS = 1500;

const dispatch = (jobId: string) => ({ job_id: jobId, attempt: 1, run_id: 'run', client_id: 'client' }) as never;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
    while (handed.length === 0) await sleep(20);
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
    while (deliveries.length === 0) await sleep(20);
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
    while (received.length < 2) await sleep(20);

    await gone.close();
    const wentAwayAt = Date.now();
    const redelivered = new Map<string, { count: number; afterMs: number }>();
    const taker = queue().consume(2, async (job) => {
      redelivered.set(job.dispatch.job_id, { count: job.deliveryCount, afterMs: Date.now() - wentAwayAt });
      job.ack();
    });
    while (redelivered.size < 2 && Date.now() - wentAwayAt < 20_000) await sleep(20);

    expect([...redelivered.keys()].sort()).toEqual(['job-a', 'job-b']);
    for (const { count, afterMs } of redelivered.values()) {
      expect(count).toBe(2);
      // One lease plus a fetch's wait; the job lease (30 s by default) would fail this.
      expect(afterMs).toBeLessThan(DELIVERY_LEASE_MS + 3000);
    }
    release();
    await Promise.all([taker.stop(1000), goneConsumer.stop(1000)]);
  }, 40_000);
});
