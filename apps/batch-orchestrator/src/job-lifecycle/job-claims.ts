import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { ClaimJobCommand, ClaimJobReply, HeartbeatJobCommand } from '@lib/contracts';
import { creditUsageOf, DATABASE, DatabaseConnection, holdCredits, lockCreditAccount } from '@lib/persistence';
import { CREDIT_COST } from '@lib/plans';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { JobCompletion, LOCKED_JOB_COLUMNS, LockedJob } from './job-completion';

/**
 * A worker takes a dispatched job: only the current attempt, only once (started_at was null), and
 * only when the month's quota can cover it — the job's credits are then held like a sync
 * request's, so concurrent jobs can never overdraw the quota. The lease says how long the job is
 * the worker's without a heartbeat.
 */
@Injectable()
export class JobClaims {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly completion: JobCompletion,
  ) {}

  /** `settledFor`: the client whose job ended at claim (quota); `heldFor`: the client whose credits were held. */
  async claim(command: ClaimJobCommand): Promise<{ reply: ClaimJobReply; settledFor: string | null; heldFor: string | null }> {
    const now = this.clock.now();
    const leaseMs = this.config.jobLeaseSeconds * 1000;
    return this.db.sql.transaction(async (tx) => {
      const [job] = await tx.query<LockedJob & { request: Record<string, unknown>; monthly_credits: number | null }>(
        `update jobs j set started_at = $3, lease_expires_at = $4, worker_id = $5
         from runs r
         where j.id = $1 and j.attempt = $2 and j.status = 'processing' and j.started_at is null and r.id = j.run_id
         returning ${LOCKED_JOB_COLUMNS.split(', ')
           .map((c) => `j.${c}`)
           .join(', ')}, j.request, r.monthly_credits`,
        [command.job_id, command.attempt, now, new Date(now.getTime() + leaseMs), command.worker_id],
      );
      if (!job) return { reply: { outcome: 'stale' }, settledFor: null, heldFor: null };
      const cost = job.mode === 'browser' ? CREDIT_COST.browser_request : CREDIT_COST.simple_request;
      if (job.monthly_credits !== null) {
        await lockCreditAccount(tx, job.client_id);
        const usage = await creditUsageOf(tx, job.client_id, now);
        if (usage.charged + usage.held + cost > job.monthly_credits) {
          const message = `monthly credit quota exhausted (${usage.charged + usage.held} of ${job.monthly_credits} used in ${usage.month}; this job needs ${cost})`;
          await this.completion.completeWithin(tx, job, { kind: 'quota_exceeded', message, executionTimeMs: 0 });
          return { reply: { outcome: 'stale' }, settledFor: job.client_id, heldFor: null };
        }
      }
      // Unlimited clients (enterprise) have nothing to overdraw: no hold, two statements saved per job.
      if (job.monthly_credits !== null) {
        const reservationId = randomUUID();
        const holdUntil = new Date(now.getTime() + (this.config.jobMaxRuntimeSeconds + this.config.jobLeaseSeconds) * 1000);
        await holdCredits(tx, { id: reservationId, clientId: job.client_id, credits: cost, expiresAt: holdUntil, at: now });
        await tx.query('update jobs set reservation_id = $2 where id = $1', [job.id, reservationId]);
      }
      return {
        reply: {
          outcome: 'claimed',
          client_id: job.client_id,
          request: job.request,
          lease_ms: leaseMs,
          deadline_ms: this.config.jobMaxRuntimeSeconds * 1000,
        },
        settledFor: null,
        heldFor: job.monthly_credits !== null ? job.client_id : null,
      };
    });
  }

  /** Renews the lease while the attempt still owns the job; false tells the worker to let go. */
  async heartbeat(command: HeartbeatJobCommand): Promise<boolean> {
    const now = this.clock.now();
    const renewed = await this.db.sql.query(
      "update jobs set lease_expires_at = $3 where id = $1 and attempt = $2 and status = 'processing' and started_at is not null returning id",
      [command.job_id, command.attempt, new Date(now.getTime() + this.config.jobLeaseSeconds * 1000)],
    );
    return renewed.length === 1;
  }
}
