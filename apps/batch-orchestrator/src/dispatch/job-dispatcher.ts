import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import type { JobDispatch } from '@lib/contracts';
import { JOB_QUEUE_ADAPTER, JobQueue } from '@lib/messaging';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable, Logger } from '@nestjs/common';

/**
 * Puts jobs on the queue, no more than the client's plan allows in flight at once and no more
 * than BATCH_GLOBAL_CONCURRENCY across all clients. A job is marked dispatched in the database
 * before its message is published; a publish that fails is undone, and the sweeper re-publishes
 * a dispatch that never started (a crash between commit and publish).
 */
@Injectable()
export class JobDispatcher {
  private readonly logger = new Logger('JobDispatcher');

  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(JOB_QUEUE_ADAPTER) private readonly queue: JobQueue,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** Dispatches what the client's free places allow (after a run starts or one of its jobs ends). */
  async dispatchFor(clientId: string): Promise<number> {
    const dispatches = await this.db.sql.transaction(async (tx) => {
      // One decision at a time platform-wide, so two replicas never both fill the same free place.
      await tx.query("select pg_advisory_xact_lock(hashtext('batch-dispatch'))::text as locked");
      // One statement: the free places (client and global) and the jobs that fill them.
      const rows = await tx.query<JobDispatch & { seq: string }>(
        `with places as (
           select least(
             coalesce((select max(max_concurrency) from runs where client_id = $1 and status = 'in_progress'), 0)
               - (select count(*) from jobs where client_id = $1 and status = 'processing' and dispatched_at is not null),
             $2::int - (select count(*) from jobs where status = 'processing' and dispatched_at is not null)
           ) as free
         )
         update jobs set dispatched_at = $3 where id in (
           select id from jobs where client_id = $1 and status = 'processing' and dispatched_at is null
           order by seq limit (select greatest(free, 0) from places)
         ) returning id as job_id, attempt, seq::text as seq`,
        [clientId, this.config.batchGlobalConcurrency, this.clock.now()],
      );
      // RETURNING follows no order: publish in insertion order, so jobs start in collection order.
      return rows.sort((x, y) => (BigInt(x.seq) < BigInt(y.seq) ? -1 : 1)).map(({ job_id, attempt }) => ({ job_id, attempt }));
    });
    await this.publish(dispatches);
    return dispatches.length;
  }

  /** Every client with jobs waiting (the sweeper's pass: global places freed by other clients). */
  async dispatchWaiting(): Promise<void> {
    const clients = await this.db.sql.query<{ client_id: string }>(
      "select distinct client_id from jobs where status = 'processing' and dispatched_at is null",
    );
    for (const { client_id } of clients) await this.dispatchFor(client_id);
  }

  async publish(dispatches: JobDispatch[]): Promise<void> {
    for (const dispatch of dispatches) {
      try {
        await this.queue.publish(dispatch);
      } catch (error) {
        this.logger.warn(
          `publishing job ${dispatch.job_id} failed (${error instanceof Error ? error.message : String(error)}); it waits for the next dispatch`,
        );
        await this.db.sql.query('update jobs set dispatched_at = null where id = $1 and attempt = $2 and started_at is null', [
          dispatch.job_id,
          dispatch.attempt,
        ]);
      }
    }
  }
}
