import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import type { JobDispatch } from '@lib/contracts';
import { JOB_QUEUE_ADAPTER, JobQueue } from '@lib/messaging';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock, CoalescedPasses } from '@lib/runtime';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { JobStore } from '../persistence/jobs.store';

/**
 * How far apart one client's dispatch passes start while its jobs already on the queue can keep
 * every worker busy. A pass is a transaction under the platform-wide dispatch lock; each finished
 * job asks for one, so a 1,000-job run made ~1,000 passes of one job each. Spaced, a pass takes
 * every place freed meanwhile (at ~150 jobs/s, three or four), and no worker waits for it: each has
 * a job on the queue already. With a shorter queue, passes start at once (docs/decisions/0028).
 */
export const DISPATCH_PASS_SPACING_MS = 20;

/**
 * Puts jobs on the queue, no more than the client's plan allows in flight at once and no more
 * than JOB_GLOBAL_CONCURRENCY across all clients. A job is marked dispatched in the database
 * before its message is published; a publish that fails is undone, and the sweeper re-publishes
 * a dispatch that never started (a crash between commit and publish).
 */
@Injectable()
export class JobDispatcher {
  private readonly logger = new Logger('JobDispatcher');
  private readonly passes = new CoalescedPasses<string, number | null>(
    (clientId) => this.dispatchPass(clientId),
    (clientId, error) =>
      this.logger.warn(`dispatch for ${clientId} failed (${error instanceof Error ? error.message : String(error)}); the sweeper retries`),
    (queued) => (queued !== null && queued >= this.config.jobWorkerConcurrency ? DISPATCH_PASS_SPACING_MS : 0),
  );

  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(JOB_QUEUE_ADAPTER) private readonly queue: JobQueue,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly jobs: JobStore,
  ) {}

  /**
   * Dispatch for `clientId` soon, off the caller's path (a job's end must not wait for the next
   * job's dispatch). Requests that arrive while one runs share a single further pass, which fills
   * every place freed meanwhile in one transaction; while the client's queue holds a job for every
   * worker (JOB_WORKER_CONCURRENCY), its passes start DISPATCH_PASS_SPACING_MS apart. A failed pass
   * is logged; the sweeper's pass (JOB_SWEEP_INTERVAL_MS) dispatches what it left.
   */
  requestDispatch(clientId: string): void {
    void this.passes.request(clientId);
  }

  /** Dispatches what the client's free places allow (after a run starts or one of its jobs ends). */
  async dispatchFor(clientId: string): Promise<number> {
    return (await this.dispatch(clientId)).dispatches.length;
  }

  /** A requested pass: what is on the client's queue after it (null: it dispatched nothing). */
  private async dispatchPass(clientId: string): Promise<number | null> {
    return (await this.dispatch(clientId)).queued;
  }

  private async dispatch(clientId: string): Promise<{ dispatches: JobDispatch[]; queued: number | null }> {
    // One statement, its own transaction, under the platform-wide dispatch lock: one decision at a
    // time, so two replicas never both fill the same free place.
    const marked = await this.jobs.markDispatched(this.db.sql, clientId, this.config.jobGlobalConcurrency, this.clock.now());
    await this.publish(marked.dispatches);
    return marked;
  }

  /** Every client with jobs waiting (the sweeper's pass: global places freed by other clients). */
  async dispatchWaiting(): Promise<void> {
    for (const clientId of await this.jobs.clientsWithWaitingJobs()) await this.dispatchFor(clientId);
  }

  async publish(dispatches: JobDispatch[]): Promise<void> {
    for (const dispatch of dispatches) {
      try {
        await this.queue.publish(dispatch);
      } catch (error) {
        this.logger.warn(
          `publishing job ${dispatch.job_id} failed (${error instanceof Error ? error.message : String(error)}); it waits for the next dispatch`,
        );
        await this.jobs.undoDispatch(dispatch);
      }
    }
  }
}
