import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { ClaimJobCommand, ClaimJobReply, CompleteJobCommand, proxyCountryOf, SUBJECTS } from '@lib/contracts';
import { dispatchMessageId, JOB_QUEUE_ADAPTER, JobConsumer, JobQueue, MessageBus, QueuedJob } from '@lib/messaging';
import { PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, Logger } from '@nestjs/common';
import os from 'node:os';
import { PageComparison } from '../page-changes/page-comparison';
import { JobPageCache } from './job-page-cache';
import { isOutage } from './outages';
import { ScrapeExecution } from '../sync-scrape/scrape-execution';

// Claim and heartbeat are short; completion carries a (parked) result and one transaction (ms
// normally). A report is fenced by attempt, so one that timed out is simply sent again: a long
// timeout only delays a run whose orchestrator died with the report in flight (the heartbeat
// holds the lease meanwhile; at 60 s the kill -9 drill's run took 63.7 s).
const CLAIM_TIMEOUT_MS = 15_000;
// One claim attempt's wait for its reply, within CLAIM_TIMEOUT_MS: a claim delivered to an
// orchestrator that died holding it is asked again of a live one after this, not after the whole
// budget (a kill -9 drill once took 17.5 s, 15 s of it one claim waiting). A repeat is answered
// `claimed` again under this worker's id, so asking again is safe.
const CLAIM_ATTEMPT_TIMEOUT_MS = 3_000;
const REPORT_TIMEOUT_MS = 5_000;
// A job the orchestrator could not take back right now (it is restarting) is offered again after this.
const RETRY_LATER_MS = 2000;
// A claim or report that met an outage is sent again after 250 ms, doubling to 2 s.
const OUTAGE_FIRST_RETRY_MS = 250;
const OUTAGE_MAX_RETRY_MS = 2000;
// How often a worker holding jobs tells the orchestrators it is alive (they allow a few missed beats).
export const WORKER_ALIVE_INTERVAL_MS = 1000;

class JobDeadlineError extends Error {}

/**
 * Takes batch jobs from the job queue and runs them with the same executors as sync scrapes.
 * For each delivery: claim it (fenced by attempt), run it under the job's deadline while
 * heartbeats renew the lease, report the outcome, and ack the message only after the
 * orchestrator committed it. A worker that dies mid-job leaves an expiring lease, never a job
 * that stays `processing`.
 */
@Injectable()
export class JobWorker {
  private readonly logger = new Logger('JobWorker');
  private readonly workerId = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private consumer: JobConsumer | null = null;
  /** Jobs this worker holds (claimed or being claimed), by job id and attempt. */
  private readonly inHand = new Set<string>();
  private readonly alive = new PeriodicTask('JobWorker', WORKER_ALIVE_INTERVAL_MS, async () => {
    if (this.inHand.size > 0) this.announce();
  });

  constructor(
    @Inject(JOB_QUEUE_ADAPTER) private readonly queue: JobQueue,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly scrapes: ScrapeExecution,
    private readonly comparison: PageComparison,
    private readonly pageCache: JobPageCache,
  ) {}

  start(): void {
    this.consumer ??= this.queue.consume(this.config.jobWorkerConcurrency, (job) => this.work(job));
    // Over NATS a worker can die on its own (kill -9, OOM, a lost node): its beat going silent
    // tells the orchestrators within seconds, not a lease later. Embedded, it dies with them.
    if (this.bus.kind === 'nats') this.alive.start();
  }

  /** Stops taking jobs; jobs in hand get `graceMs` to finish (the rest go back to the queue when this worker falls silent). */
  async stop(graceMs = 20_000): Promise<void> {
    await this.consumer?.stop(graceMs);
    this.consumer = null;
    await this.alive.stop();
  }

  /** Names this worker and how many jobs it holds (over NATS; embedded, nobody listens for it). */
  private announce(): void {
    if (this.bus.kind !== 'nats') return;
    this.bus.emit(SUBJECTS.jobs.workerAlive, {
      worker_id: this.workerId,
      jobs_in_hand: this.inHand.size,
      interval_ms: WORKER_ALIVE_INTERVAL_MS,
    });
  }

  /** Holds `key` while `work` runs: named before the claim is sent, so a worker that dies right after claiming is noticed too. */
  private async holding(key: string, work: () => Promise<void>): Promise<void> {
    this.inHand.add(key);
    if (this.inHand.size === 1) this.announce();
    try {
      await work();
    } finally {
      this.inHand.delete(key);
      // The last beat says it holds nothing, so nobody mistakes an idle worker for a dead one.
      if (this.inHand.size === 0) this.announce();
    }
  }

  /** A job may name a country pool only while the client's approval holds (spec 4.2 rule 4), like a sync scrape. */
  private async assertCountryApproved(clientId: string, request: Record<string, unknown>): Promise<void> {
    const country = proxyCountryOf(request.use_proxy);
    if (!country) return;
    const { approved } = await this.bus.request(
      SUBJECTS.proxies.check,
      { client_id: clientId, country_code: country },
      { timeoutMs: CLAIM_TIMEOUT_MS },
    );
    if (!approved)
      throw new Error(
        `country_not_approved: the ${country} proxy pool is not approved for this client (POST /v1/proxy/request-country); nothing was fetched or charged`,
      );
  }

  private async work(job: QueuedJob): Promise<void> {
    const key = dispatchMessageId(job.dispatch);
    // A second delivery of a dispatch this worker holds (a redelivery while it runs): the claim
    // would answer `claimed` again to this worker's id and the page would be fetched twice. The
    // first delivery owns the job; its lease and this worker's beats cover it.
    if (this.inHand.has(key)) {
      job.ack();
      return;
    }
    return this.holding(key, () => this.run(job));
  }

  private async run(job: QueuedJob): Promise<void> {
    const { job_id, attempt } = job.dispatch;
    const ref = { job_id, attempt, worker_id: this.workerId };
    const claim = await this.claim(job, ref);
    if (!claim) return;
    if (claim.outcome === 'stale') {
      job.ack();
      return;
    }

    const started = Date.now();
    let held = true;
    const heartbeat = setInterval(
      () => {
        this.bus
          .request(SUBJECTS.jobs.heartbeat, ref, { timeoutMs: CLAIM_TIMEOUT_MS })
          .then((reply) => (held = reply.held))
          .catch((error: unknown) => this.logger.warn(`heartbeat of job ${job_id}: ${messageOf(error)}`));
      },
      Math.max(500, Math.floor(claim.lease_ms / 3)),
    );

    let report: CompleteJobCommand;
    try {
      await this.assertCountryApproved(claim.client_id, claim.request);
      // A job past its client's browser share waits for one of its client's pages to end (its plan's
      // batch concurrency already bounds how many it has), at most until its deadline.
      const tenant = { clientId: claim.client_id, onOverPlan: 'wait', waitMs: claim.deadline_ms } as const;
      const { facts, result } = await withDeadline(
        this.pageCache
          .through({ clientId: claim.client_id, jobId: job_id }, claim.request, (plain, revalidate) =>
            this.scrapes.run(plain, tenant, { crawlPage: claim.crawl_page, revalidate, monitorPage: claim.monitor_page }),
          )
          .then(async (done) =>
            claim.monitor_page
              ? {
                  ...done,
                  result: await this.comparison.compare(
                    { clientId: claim.client_id, jobId: job_id, attempt, url: String(claim.request.url) },
                    claim.monitor_page,
                    done.facts,
                    done.result,
                  ),
                }
              : done,
          ),
        claim.deadline_ms,
      );
      report = { ...ref, execution: { facts, result: await this.bus.pack(result) }, execution_time_ms: Date.now() - started };
    } catch (error) {
      const timeout = error instanceof JobDeadlineError;
      report = {
        ...ref,
        failure: { kind: timeout ? 'timeout' : 'worker_failure', message: messageOf(error) },
        execution_time_ms: Date.now() - started,
      };
    }
    try {
      await this.report(job, report, () => held, claim.lease_ms);
    } finally {
      // The heartbeat runs until the outcome is committed: the lease holds while a report is retried.
      clearInterval(heartbeat);
    }
  }

  /**
   * Claims the job, asking again through an outage of the broker or the database. The claim may
   * have been committed with its reply lost (a broker restart drops replies in flight): asked again
   * under this worker's id it is answered `claimed` again, where a redelivery to any worker would be
   * `stale` and the job would sit out its lease.
   * Null when it gave up and handed the message back.
   */
  private async claim(job: QueuedJob, ref: ClaimJobCommand): Promise<ClaimJobReply | null> {
    const giveUpAt = Date.now() + CLAIM_TIMEOUT_MS;
    for (let waitMs = OUTAGE_FIRST_RETRY_MS; ; waitMs = Math.min(2 * waitMs, OUTAGE_MAX_RETRY_MS)) {
      try {
        const timeoutMs = Math.max(250, Math.min(CLAIM_ATTEMPT_TIMEOUT_MS, giveUpAt - Date.now()));
        return await this.bus.request(SUBJECTS.jobs.claim, ref, { timeoutMs, correlationId: `job:${ref.job_id}` });
      } catch (error) {
        if (!isOutage(error) || Date.now() + waitMs > giveUpAt) {
          this.logger.warn(`claim of job ${ref.job_id} failed: ${messageOf(error)}; offered again in ${RETRY_LATER_MS} ms`);
          job.nak(RETRY_LATER_MS);
          return null;
        }
        this.logger.warn(`claim of job ${ref.job_id} failed: ${messageOf(error)}; asking again in ${waitMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }

  /**
   * Reports the outcome, trying again through an outage of the broker or the database (while this
   * worker still holds the lease, for at most twice its length) rather than leaving the job to wait
   * for its lease to expire and run again: after a fault the run completes seconds after the
   * outage ends, not a lease later. The report is fenced by attempt, so a repeat is harmless.
   */
  private async report(job: QueuedJob, report: CompleteJobCommand, held: () => boolean, leaseMs: number): Promise<void> {
    const giveUpAt = Date.now() + Math.max(2 * leaseMs, 10_000);
    for (let waitMs = OUTAGE_FIRST_RETRY_MS; ; waitMs = Math.min(2 * waitMs, OUTAGE_MAX_RETRY_MS)) {
      if (!held()) {
        // The lease was lost (this worker stalled): a newer attempt owns the job; the report would be fenced off anyway.
        job.ack();
        return;
      }
      try {
        await this.bus.request(SUBJECTS.jobs.complete, report, { timeoutMs: REPORT_TIMEOUT_MS, correlationId: `job:${report.job_id}` });
        job.ack();
        return;
      } catch (error) {
        if (!isOutage(error) || Date.now() + waitMs > giveUpAt) {
          // Not committed: leave the message unacked. The lease expires and the sweeper dispatches again.
          this.logger.warn(`reporting job ${report.job_id} failed: ${messageOf(error)}`);
          job.nak(RETRY_LATER_MS);
          return;
        }
        this.logger.warn(`reporting job ${report.job_id} failed: ${messageOf(error)}; trying again in ${waitMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }
}

/** A failure of the way to the orchestrator or of its database, not a refusal of the report itself. */

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new JobDeadlineError(`worker-level timeout: the job ran longer than ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
