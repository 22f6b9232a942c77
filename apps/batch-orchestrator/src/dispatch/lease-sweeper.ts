import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import type { JobDispatch } from '@lib/contracts';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock, PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { JobCompletion, LOCKED_JOB_COLUMNS, LockedJob } from '../job-lifecycle/job-completion';
import { JobDispatcher } from './job-dispatcher';

const BATCH = 200;

/**
 * Nothing stays `processing` forever. On a schedule, in every replica (row locks with SKIP LOCKED
 * keep replicas off each other's rows):
 * - a started job whose lease expired (its worker died or hung) is dispatched again under a new
 *   attempt, counting retries_attempted, or after JOB_MAX_RETRIES ends as `timeout`;
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
  ) {
    this.schedule = new PeriodicTask('LeaseSweeper', config.batchSweepIntervalMs, () => this.sweep());
  }

  async onApplicationBootstrap(): Promise<void> {
    // The embedded queue lives in memory: after a restart, dispatches that never started are gone
    // with it. Publish them again now instead of waiting out the lost-dispatch window.
    if (!this.config.natsUrl) await this.redispatchUnstarted(this.clock.now());
    this.schedule.start();
  }

  private async redispatchUnstarted(now: Date): Promise<void> {
    const again = await this.db.sql.query<JobDispatch>(
      "update jobs set attempt = attempt + 1, dispatched_at = $1 where status = 'processing' and started_at is null and dispatched_at is not null returning id as job_id, attempt",
      [now],
    );
    if (again.length > 0) this.logger.log(`${again.length} job(s) dispatched before the restart: dispatching again`);
    await this.dispatcher.publish(again);
  }

  onApplicationShutdown(): Promise<void> {
    return this.schedule.stop();
  }

  async sweep(): Promise<void> {
    const now = this.clock.now();
    const redispatch = await this.db.sql.transaction(async (tx) => {
      const expired = await tx.query<LockedJob>(
        `select ${LOCKED_JOB_COLUMNS} from jobs where status = 'processing' and lease_expires_at < $1 order by lease_expires_at limit ${BATCH} for update skip locked`,
        [now],
      );
      const again: JobDispatch[] = [];
      for (const job of expired) {
        if (job.retries_attempted < this.config.jobMaxRetries) {
          if (job.reservation_id) await tx.query('delete from credit_reservations where id = $1', [job.reservation_id]);
          const [next] = await tx.query<JobDispatch>(
            `update jobs set attempt = attempt + 1, retries_attempted = retries_attempted + 1, started_at = null, lease_expires_at = null, worker_id = null,
               reservation_id = null, dispatched_at = $2 where id = $1 returning id as job_id, attempt`,
            [job.id, now],
          );
          again.push(next);
        } else {
          const message = `worker-level timeout: the worker stopped reporting on this job (lease of ${this.config.jobLeaseSeconds} s expired after ${job.retries_attempted + 1} attempt(s))`;
          const ranMs = job.started_at ? now.getTime() - new Date(job.started_at).getTime() : 0;
          await this.completion.completeWithin(tx, job, { kind: 'timeout', message, executionTimeMs: ranMs });
        }
      }
      const lost = await tx.query<JobDispatch>(
        `update jobs set attempt = attempt + 1, dispatched_at = $1 where id in (
           select id from jobs where status = 'processing' and started_at is null and dispatched_at < $2 limit ${BATCH} for update skip locked
         ) returning id as job_id, attempt`,
        [now, new Date(now.getTime() - (this.config.jobMaxRuntimeSeconds + this.config.jobLeaseSeconds) * 1000)],
      );
      return [...again, ...lost];
    });
    if (redispatch.length > 0) this.logger.log(`dispatching ${redispatch.length} job(s) again`);
    await this.dispatcher.publish(redispatch);
    await this.dispatcher.dispatchWaiting();
  }
}
