import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import type { JobDispatch } from '@lib/contracts';
import { JOB_QUEUE_ADAPTER, JobQueue } from '@lib/messaging';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock, CoalescedPasses } from '@lib/runtime';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { JobStore } from '../persistence/jobs.store';

/**
 * Puts jobs on the queue, no more than the client's plan allows in flight at once and no more
 * than BATCH_GLOBAL_CONCURRENCY across all clients. A job is marked dispatched in the database
 * before its message is published; a publish that fails is undone, and the sweeper re-publishes
 * a dispatch that never started (a crash between commit and publish).
 */
@Injectable()
export class JobDispatcher {
  private readonly logger = new Logger('JobDispatcher');
  private readonly passes = new CoalescedPasses<string>(
    (clientId) => this.dispatchFor(clientId),
    (clientId, error) =>
      this.logger.warn(`dispatch for ${clientId} failed (${error instanceof Error ? error.message : String(error)}); the sweeper retries`),
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
   * every place freed meanwhile in one transaction. A failed pass is logged; the sweeper's pass
   * (BATCH_SWEEP_INTERVAL_MS) dispatches what it left.
   */
  requestDispatch(clientId: string): void {
    void this.passes.request(clientId);
  }

  /** Dispatches what the client's free places allow (after a run starts or one of its jobs ends). */
  async dispatchFor(clientId: string): Promise<number> {
    const dispatches = await this.db.sql.transaction(async (tx) => {
      // One decision at a time platform-wide, so two replicas never both fill the same free place.
      await this.jobs.lockDispatchDecision(tx);
      return this.jobs.markDispatched(tx, clientId, this.config.batchGlobalConcurrency, this.clock.now());
    });
    await this.publish(dispatches);
    return dispatches.length;
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
