import { JOB_QUEUE, type JobDispatch } from '@lib/contracts';
import { Logger } from '@nestjs/common';

/** One delivery of a dispatched job to a worker. */
export interface QueuedJob {
  dispatch: JobDispatch;
  /** 1 on the first delivery; more after a worker died or gave the message back. */
  deliveryCount: number;
  /** Done with it (after the outcome is committed): never delivered again. */
  ack(): void;
  /** Give it back; it is delivered again after `delayMs`. */
  nak(delayMs?: number): void;
}

export interface JobConsumer {
  /** Stops taking new jobs and waits (up to `graceMs`) for the ones in hand. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Durable at-least-once dispatch of batch jobs from batch-orchestrator to scrape-engine workers.
 * Every worker of every scrape-engine process shares one queue: each message goes to one worker
 * at a time, stays with it while its handler runs, and comes back to another if it is not acked.
 * Exactly-once *effects* come from the database (attempt fencing), not from the queue.
 */
export interface JobQueue {
  publish(dispatch: JobDispatch): Promise<void>;
  /** Delivers jobs to `handle`, at most `concurrency` at once. */
  consume(concurrency: number, handle: (job: QueuedJob) => Promise<void>): JobConsumer;
  close(): Promise<void>;
}

// A pull request outlives the worker that made it by at most this (what it receives then is lost to
// a dead inbox and comes back after the delivery lease).
const FETCH_EXPIRES_MS = 1000;
// How long close() lets a drain run before it closes the connection outright.
const CLOSE_DRAIN_MS = 5000;

/**
 * The distributed runtime's queue: a JetStream work-queue stream with one durable pull consumer
 * shared by all workers. NestJS's NATS transport is core NATS (at most once, no manual ack), so
 * dispatch uses @nats-io/jetstream directly.
 */
export class JetStreamJobQueue implements JobQueue {
  private readonly logger = new Logger('JetStreamJobQueue');
  private connection: Promise<{
    nc: import('@nats-io/nats-core').NatsConnection;
    js: import('@nats-io/jetstream').JetStreamClient;
  }> | null = null;
  /** Closed for good: a consumer's loop ends instead of opening a new connection behind close(). */
  private closed = false;

  /**
   * `deliveryLeaseMs` is JetStream's ack_wait: how long a message stays with a worker that says
   * nothing. While a handler runs, this queue tells the broker every third of it that the message
   * is still being worked on, so a live worker keeps it as long as it needs. A worker that died
   * (kill -9, OOM, a lost node) stops saying so, and every message it held comes back within one
   * delivery lease: the ones it was running, and the ones no database row shows it held — received
   * by its last fetch but not yet claimed, or sent to its pull request after it died. It is the
   * engine silence limit (ENGINE_SILENCE_MS, seconds), not the job lease (JOB_LEASE_SECONDS, 30 s),
   * which a run would wait out after its engine was killed. A redelivery to a
   * second worker while the first is alive but stalled is harmless: its claim is fenced (`stale`).
   */
  constructor(
    private readonly natsUrl: string,
    private readonly clientName: string,
    private readonly deliveryLeaseMs: number,
  ) {}

  async publish(dispatch: JobDispatch): Promise<void> {
    const { js } = await this.ready();
    // The message id lets JetStream drop a duplicate publish of the same dispatch (a retried call, the dispatch relay).
    await js.publish(JOB_QUEUE.subject, JSON.stringify(dispatch), { msgID: dispatchMessageId(dispatch) });
  }

  consume(concurrency: number, handle: (job: QueuedJob) => Promise<void>): JobConsumer {
    const slots = new Slots(concurrency);
    let running = true;
    const loop = (async () => {
      while (running && !this.closed) {
        try {
          const { js } = await this.ready();
          const consumer = await js.consumers.get(JOB_QUEUE.stream, JOB_QUEUE.consumer);
          while (running && !this.closed) {
            await slots.free();
            if (!running || this.closed) break;
            const batch = await consumer.fetch({ max_messages: slots.available, expires: FETCH_EXPIRES_MS });
            for await (const message of batch) {
              slots.take();
              // Until the handler ends: an ended one that did not ack has its message back after one delivery lease.
              const inProgress = setInterval(
                () => {
                  try {
                    message.working();
                  } catch {
                    // The connection is closed (this process is stopping): the broker takes the message back.
                  }
                },
                Math.max(200, Math.floor(this.deliveryLeaseMs / 3)),
              ).unref();
              const job: QueuedJob = {
                dispatch: message.json<JobDispatch>(),
                deliveryCount: message.info.deliveryCount,
                ack: () => message.ack(),
                nak: (delayMs) => message.nak(delayMs),
              };
              void handle(job).finally(() => {
                clearInterval(inProgress);
                slots.give();
              });
            }
          }
        } catch (error) {
          if (!running || this.closed) break;
          this.logger.warn(`job queue consumer: ${error instanceof Error ? error.message : String(error)}; retrying in 1 s`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    })();
    return {
      stop: async (graceMs = 30_000) => {
        running = false;
        await Promise.race([Promise.all([loop, slots.drained()]), new Promise((r) => setTimeout(r, graceMs).unref())]);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (!this.connection) return;
    const { nc } = await this.connection.catch(() => ({ nc: null }));
    this.connection = null;
    if (!nc) return;
    // A drain waits on the server; a shutdown does not wait on it past the bound (what is unacked comes back after one lease).
    let bound: NodeJS.Timeout | undefined;
    const drained = nc.drain().catch(() => undefined);
    const timedOut = new Promise<'timed-out'>((resolve) => (bound = setTimeout(() => resolve('timed-out'), CLOSE_DRAIN_MS)));
    if ((await Promise.race([drained, timedOut])) === 'timed-out') await nc.close().catch(() => undefined);
    clearTimeout(bound);
  }

  private ready() {
    if (this.closed) return Promise.reject(new Error('job queue closed'));
    this.connection ??= (async () => {
      const { connect } = await import('@nats-io/transport-node');
      const { jetstream, jetstreamManager, AckPolicy, RetentionPolicy, StorageType } = await import('@nats-io/jetstream');
      const nc = await connect({
        servers: this.natsUrl,
        name: `${this.clientName}-jobs-${process.pid}`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 1000,
      });
      const jsm = await jetstreamManager(nc);
      // Created by whichever process comes first; the same config from a second one is a no-op.
      await jsm.streams.info(JOB_QUEUE.stream).catch(() =>
        jsm.streams.add({
          name: JOB_QUEUE.stream,
          subjects: [JOB_QUEUE.subject],
          retention: RetentionPolicy.Workqueue,
          storage: StorageType.File,
          duplicate_window: 120 * 1e9,
        }),
      );
      const ackWait = this.deliveryLeaseMs * 1e6;
      const existing = await jsm.consumers.info(JOB_QUEUE.stream, JOB_QUEUE.consumer).catch(() => null);
      if (!existing) {
        // Another process may create it at the same moment: the same config, nothing to do.
        await jsm.consumers
          .add(JOB_QUEUE.stream, {
            durable_name: JOB_QUEUE.consumer,
            ack_policy: AckPolicy.Explicit,
            ack_wait: ackWait,
            max_deliver: -1,
            max_ack_pending: 20_000,
          })
          .catch(() => undefined);
      } else if (existing.config.ack_wait !== ackWait) {
        // A changed ENGINE_SILENCE_MS reaches the durable consumer made under the old one.
        await jsm.consumers.update(JOB_QUEUE.stream, JOB_QUEUE.consumer, { ack_wait: ackWait });
      }
      return { nc, js: jetstream(nc) };
    })().catch((error: unknown) => {
      this.connection = null;
      throw error;
    });
    return this.connection;
  }
}

/** A dispatch's message id: the same dispatch published twice is one message (JetStream's msgID). */
export function dispatchMessageId(dispatch: JobDispatch): string {
  return `${dispatch.job_id}:${dispatch.attempt}`;
}

/**
 * The embedded runtime's queue, with the same contract: a message is handed to one consumer at a
 * time and comes back when it is nak'ed or when its handler ends without an ack. A dispatch
 * published again while its message is on the queue or in a consumer's hands is dropped, as
 * JetStream drops a duplicate message id (the dispatch relay publishes again what it cannot know
 * was published).
 */
export class InProcessJobQueue implements JobQueue {
  private readonly pending: Array<{ dispatch: JobDispatch; deliveries: number }> = [];
  private readonly consumers: Array<{ slots: Slots; handle: (job: QueuedJob) => Promise<void> }> = [];
  /** Message ids on the queue or being handled (not acked). */
  private readonly held = new Set<string>();
  private next = 0;

  async publish(dispatch: JobDispatch): Promise<void> {
    const id = dispatchMessageId(dispatch);
    if (this.held.has(id)) return;
    this.held.add(id);
    this.pending.push({ dispatch: { ...dispatch }, deliveries: 0 });
    this.pump();
  }

  consume(concurrency: number, handle: (job: QueuedJob) => Promise<void>): JobConsumer {
    const consumer = { slots: new Slots(concurrency), handle };
    this.consumers.push(consumer);
    this.pump();
    return {
      stop: async (graceMs = 30_000) => {
        this.consumers.splice(this.consumers.indexOf(consumer), 1);
        await Promise.race([consumer.slots.drained(), new Promise((r) => setTimeout(r, graceMs).unref())]);
      },
    };
  }

  async close(): Promise<void> {
    this.pending.length = 0;
    this.held.clear();
  }

  private pump(): void {
    while (this.pending.length > 0) {
      const ready = this.consumers.filter((c) => c.slots.available > 0);
      if (ready.length === 0) return;
      const consumer = ready[this.next++ % ready.length];
      const item = this.pending.shift()!;
      item.deliveries += 1;
      consumer.slots.take();
      let settled = false;
      const requeue = (delayMs: number) => {
        setTimeout(() => {
          this.pending.push(item);
          this.pump();
        }, delayMs).unref();
      };
      const job: QueuedJob = {
        dispatch: { ...item.dispatch },
        deliveryCount: item.deliveries,
        ack: () => {
          if (settled) return;
          settled = true;
          this.held.delete(dispatchMessageId(item.dispatch));
        },
        nak: (delayMs = 0) => {
          if (settled) return;
          settled = true;
          requeue(delayMs);
        },
      };
      void consumer
        .handle(job)
        .catch(() => undefined)
        .finally(() => {
          // Ended without an ack: as JetStream would after ack_wait (sooner here, nothing else can take it).
          if (!settled) requeue(1000);
          consumer.slots.give();
          this.pump();
        });
    }
  }
}

/** Counts a consumer's free places. */
class Slots {
  private used = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly capacity: number) {}

  get available(): number {
    return this.capacity - this.used;
  }

  take(): void {
    this.used += 1;
  }

  give(): void {
    this.used -= 1;
    for (const wake of this.waiters.splice(0)) wake();
  }

  async free(): Promise<void> {
    while (this.available <= 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  async drained(): Promise<void> {
    while (this.used > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}
