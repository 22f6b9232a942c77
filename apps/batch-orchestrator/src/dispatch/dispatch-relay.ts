import { JOB_QUEUE_ADAPTER, JobQueue } from '@lib/messaging';
import { CLOCK, Clock, PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { JobStore } from '../persistence/jobs.store';

/** How often the relay looks for dispatches that were committed but may never have been published. */
export const DISPATCH_RELAY_EVERY_MS = 1000;
/**
 * How old a dispatch must be before the relay publishes it again: a dispatcher publishes within
 * milliseconds of its commit, so one still unstarted after this was most likely lost with its
 * process, or is waiting on the queue behind busy workers (then the queue drops the copy).
 */
export const DISPATCH_RELAY_GRACE_MS = 2000;
const BATCH = 500;

/**
 * The job row is its dispatch's outbox (decision 0034). A dispatch is committed (dispatched_at)
 * and then published; a process killed between the two left jobs `processing` with no message,
 * which nothing took back for JOB_MAX_RUNTIME_SECONDS + JOB_LEASE_SECONDS. In every replica and
 * both runtimes, at boot and then every second, this publishes each dispatch that has not started
 * DISPATCH_RELAY_GRACE_MS after it was made, once per attempt, under the dispatch's own message id
 * (job id and attempt): JetStream drops it inside its duplicate window when the first publish got
 * through, the in-process queue drops it while the first is on the queue or in a worker's hands,
 * and a copy that still reaches a worker is fenced by the claim (one start per attempt).
 */
@Injectable()
export class DispatchRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DispatchRelay');
  private readonly schedule = new PeriodicTask('DispatchRelay', DISPATCH_RELAY_EVERY_MS, () => this.relay().then(() => undefined));

  constructor(
    @Inject(JOB_QUEUE_ADAPTER) private readonly queue: JobQueue,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly jobs: JobStore,
  ) {}

  onApplicationBootstrap(): void {
    // A pass at once: a restarted orchestrator publishes what its previous life committed.
    void this.schedule.runNow().catch((error: unknown) => this.logger.warn(`relay at boot failed: ${String(error)}`));
    this.schedule.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.schedule.stop();
  }

  /** One pass: publishes what was dispatched before the grace and never relayed; returns how many. */
  async relay(): Promise<number> {
    let relayed = 0;
    for (;;) {
      const due = await this.jobs.unrelayedDispatches(new Date(this.clock.now().getTime() - DISPATCH_RELAY_GRACE_MS), BATCH);
      const published = [];
      for (const dispatch of due) {
        try {
          await this.queue.publish(dispatch);
          published.push(dispatch);
        } catch (error) {
          // The broker is away: what was not published stays unrelayed, for the next pass.
          this.logger.warn(`relaying job ${dispatch.job_id} failed (${error instanceof Error ? error.message : String(error)})`);
          break;
        }
      }
      await this.jobs.markRelayed(published);
      relayed += published.length;
      if (published.length < BATCH) break;
    }
    // Debug: while workers are busy, every dispatch waiting on the queue is relayed once (and dropped there).
    if (relayed > 0)
      this.logger.debug(`published ${relayed} dispatch(es) that had not started (a dispatcher may have died before publishing)`);
    return relayed;
  }
}
