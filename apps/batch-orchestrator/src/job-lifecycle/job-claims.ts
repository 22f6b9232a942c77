import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import {
  ClaimJobCommand,
  ClaimJobReply,
  CRAWL_PAGE_DIRECTIVES,
  type CrawlPageDirectives,
  HeartbeatJobCommand,
  MONITOR_PAGE_DIRECTIVES,
  type MonitorPageDirectives,
} from '@lib/contracts';
import { CREDIT_COST } from '@lib/plans';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { JobStore } from '../persistence/jobs.store';
import { JobCompletion } from './job-completion';

/**
 * A worker takes a dispatched job: only the current attempt, only once (started_at was null), and
 * only when the month's quota can cover it — the job's credits are then held like a sync
 * request's, so concurrent jobs can never overdraw the quota. The lease says how long the job is
 * the worker's without a heartbeat.
 */
@Injectable()
export class JobClaims {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly completion: JobCompletion,
    private readonly jobs: JobStore,
  ) {}

  /**
   * `settledFor`: the client whose job ended at claim (quota), `runCompleted` when it was its run's
   * last; `heldFor`: the client whose credits were held.
   */
  async claim(
    command: ClaimJobCommand,
  ): Promise<{ reply: ClaimJobReply; settledFor: string | null; heldFor: string | null; runCompleted: boolean }> {
    const now = this.clock.now();
    const leaseMs = this.config.jobLeaseSeconds * 1000;
    return this.jobs.claimThen(
      {
        jobId: command.job_id,
        attempt: command.attempt,
        workerId: command.worker_id,
        now,
        leaseUntil: new Date(now.getTime() + leaseMs),
      },
      {
        id: randomUUID(),
        until: new Date(now.getTime() + (this.config.jobMaxRuntimeSeconds + this.config.jobLeaseSeconds) * 1000),
        costs: { simple: CREDIT_COST.simple_request, browser: CREDIT_COST.browser_request },
      },
      async (tx, claimed) => {
        if (!claimed) return { reply: { outcome: 'stale' }, settledFor: null, heldFor: null, runCompleted: false };
        const { job, overQuota } = claimed;
        if (overQuota) {
          const cost = job.mode === 'browser' ? CREDIT_COST.browser_request : CREDIT_COST.simple_request;
          const message = `monthly credit quota exhausted (${overQuota.charged + overQuota.held} of ${job.monthlyCredits} used in ${overQuota.month}; this job needs ${cost})`;
          const { runCompleted } = await this.completion.completeWithin(tx, job, { kind: 'quota_exceeded', message, executionTimeMs: 0 });
          return { reply: { outcome: 'stale' }, settledFor: job.clientId, heldFor: null, runCompleted };
        }
        // A hold was taken when the run has a quota (unlimited clients have nothing to overdraw) and
        // this is the job's first claim (a reclaim was checked and held the first time).
        const held = job.monthlyCredits !== null && !job.reclaimed;
        const { [CRAWL_PAGE_DIRECTIVES]: crawlPage, [MONITOR_PAGE_DIRECTIVES]: monitorPage, ...request } = job.request;
        return {
          reply: {
            outcome: 'claimed',
            client_id: job.clientId,
            request,
            ...(crawlPage ? { crawl_page: crawlPage as CrawlPageDirectives } : {}),
            ...(monitorPage ? { monitor_page: monitorPage as MonitorPageDirectives } : {}),
            lease_ms: leaseMs,
            deadline_ms: this.config.jobMaxRuntimeSeconds * 1000,
          },
          settledFor: null,
          heldFor: held ? job.clientId : null,
          runCompleted: false,
        };
      },
    );
  }

  /** Renews the lease while the attempt still owns the job; false tells the worker to let go. */
  async heartbeat(command: HeartbeatJobCommand): Promise<boolean> {
    const now = this.clock.now();
    return this.jobs.renewLease(command.job_id, command.attempt, new Date(now.getTime() + this.config.jobLeaseSeconds * 1000));
  }
}
