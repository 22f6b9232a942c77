import { InProcessJobQueue, type QueuedJob } from './job-queue';

describe('InProcessJobQueue', () => {
  it('hands each message to one consumer at a time, within its concurrency', async () => {
    const queue = new InProcessJobQueue();
    let inFlight = 0;
    let peak = 0;
    const seen: string[] = [];
    const consumer = queue.consume(2, async (job) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 10));
      seen.push(job.dispatch.job_id);
      inFlight -= 1;
      job.ack();
    });
    for (let i = 0; i < 6; i += 1) await queue.publish({ job_id: `j${i}`, attempt: 1 });
    // Until all six are seen (a loaded machine's timers run late: a fixed 100 ms wait was flaky), 5 s at most.
    for (const deadline = Date.now() + 5000; seen.length < 6 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 10));
    await consumer.stop();
    expect(seen.sort()).toEqual(['j0', 'j1', 'j2', 'j3', 'j4', 'j5']);
    expect(peak).toBe(2);
  });

  it('delivers again after a nak, and after a handler that ends without acking', async () => {
    const queue = new InProcessJobQueue();
    const deliveries: number[] = [];
    const consumer = queue.consume(1, async (job: QueuedJob) => {
      deliveries.push(job.deliveryCount);
      if (job.deliveryCount === 1) job.nak(5);
      else if (job.deliveryCount === 2) throw new Error('worker crashed');
      else job.ack();
    });
    await queue.publish({ job_id: 'x', attempt: 1 });
    for (const deadline = Date.now() + 5000; deliveries.length < 3 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 10));
    // A fourth delivery (the acked one again) would come within this.
    await new Promise((r) => setTimeout(r, 300));
    await consumer.stop();
    expect(deliveries).toEqual([1, 2, 3]);
  });

  it('drops a dispatch published again while its message is queued or in hand (one message per id, as JetStream)', async () => {
    const queue = new InProcessJobQueue();
    const handed: string[] = [];
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await queue.publish({ job_id: 'a', attempt: 1 });
    await queue.publish({ job_id: 'a', attempt: 1 });
    const consumer = queue.consume(4, async (job) => {
      handed.push(`${job.dispatch.job_id}:${job.dispatch.attempt}`);
      await released;
      job.ack();
    });
    await queue.publish({ job_id: 'a', attempt: 1 }); // in a consumer's hands: dropped
    await queue.publish({ job_id: 'a', attempt: 2 }); // a new attempt is a new message
    await new Promise((r) => setTimeout(r, 50));
    release();
    await new Promise((r) => setTimeout(r, 50));
    await consumer.stop();
    expect(handed.sort()).toEqual(['a:1', 'a:2']);
  });
});
