import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import type { JobDispatch } from '@lib/contracts';
import { DATABASE, DatabaseConnection, releaseHold } from '@lib/persistence';
import { CLOCK, Clock, PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { JobCompletion } from '../job-lifecycle/job-completion';
import { JobStore } from '../persistence/jobs.store';
import { JobDispatcher } from './job-dispatcher';

const BATCH = 200;

/**
 * Nothing stays `processing` forever. On a schedule, in every replica (row locks with SKIP LOCKED
 * keep replicas off each other's rows):
 * - a started job whose lease expired (its worker died or hung) is dispatched again under a new
 *   attempt, counting retries_attempted (or waits, when its run or project is paused), or after
 *   JOB_MAX_RETRIES ends as `timeout`;
 * - a dispatch that never started within the runtime budget (lost between commit and publish) is
 *   published again under a new attempt;
 * - clients with waiting jobs get the global places that other clients freed.
 */
@Injectable()
export class LeaseSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LeaseSweeper');
  private readonly schedule: PeriodicTask<void>;

  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly completion: JobCompletion,
    private readonly dispatcher: JobDispatcher,
    private readonly jobs: JobStore,
  ) {
    this.schedule = new PeriodicTask('LeaseSweeper', config.jobSweepIntervalMs, () => this.sweep());
  }

  async onApplicationBootstrap(): Promise<void> {
    // The embedded queue and its workers live in memory: after a restart, dispatches that never
    // started are gone with it, and no job started before is still being worked on. Publish the
    // first again and take the second back now, instead of waiting out their windows and leases.
    if (!this.config.natsUrl) {
      const now = this.clock.now();
      const orphaned = await this.jobs.expireLeasesStartedBefore(now);
      if (orphaned > 0) this.logger.log(`${orphaned} job(s) were running before the restart: dispatching them again`);
      await this.redispatchUnstarted(now);
      if (orphaned > 0) await this.sweepNow();
    }
    this.schedule.start();
  }

  private async redispatchUnstarted(now: Date): Promise<void> {
    const again = await this.jobs.redispatchUnstarted(now);
    if (again.length > 0) this.logger.log(`${again.length} job(s) dispatched before the restart: dispatching again`);
    await this.dispatcher.publish(again);
  }

  /** A sweep now, shared with one under way (jobs whose leases were just ended go out at once). */
  sweepNow(): Promise<void> {
    return this.schedule.runNow();
  }

  onApplicationShutdown(): Promise<void> {
    return this.schedule.stop();
  }

  async sweep(): Promise<void> {
    const now = this.clock.now();
    const redispatch = await this.db.sql.transaction(async (tx) => {
      const expired = await this.jobs.lockExpiredLeases(tx, now, BATCH);
      const again: JobDispatch[] = [];
      for (const job of expired) {
        if (job.retriesAttempted < this.config.jobMaxRetries) {
          if (job.reservationId) await releaseHold(tx, job.reservationId);
          const next = await this.jobs.retry(tx, job.id, now);
          if (next.dispatched) again.push({ job_id: next.job_id, attempt: next.attempt });
        } else {
          const message = `worker-level timeout: the worker stopped reporting on this job (lease of ${this.config.jobLeaseSeconds} s expired after ${job.retriesAttempted + 1} attempt(s))`;
          const ranMs = job.startedAt ? now.getTime() - new Date(job.startedAt).getTime() : 0;
          await this.completion.completeWithin(tx, job, { kind: 'timeout', message, executionTimeMs: ranMs });
        }
      }
      const lostBefore = new Date(now.getTime() - (this.config.jobMaxRuntimeSeconds + this.config.jobLeaseSeconds) * 1000);
      const lost = await this.jobs.redispatchLost(tx, now, lostBefore, BATCH);
      return [...again, ...lost];
    });
    if (redispatch.length > 0) this.logger.log(`dispatching ${redispatch.length} job(s) again`);
    await this.dispatcher.publish(redispatch);
    await this.dispatcher.dispatchWaiting();
  }
}
