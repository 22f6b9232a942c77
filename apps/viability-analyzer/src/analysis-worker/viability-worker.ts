import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { OPS_SUBJECTS } from '@lib/contracts';
import { OpsEventPublisher } from '@lib/messaging';
import { CLOCK, Clock, PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChargedEngineProber } from '../probing/charged-engine-prober';
import { entryWithoutEvidence, UrlAnalysis } from '../url-analysis/url-analysis';
import { ClaimedUrl, type CompletedViabilityRun, ViabilityRunStore } from '../persistence/viability-runs.store';

// On shutdown, analyses in progress get this long to finish before their URLs go back to the queue.
const SHUTDOWN_GRACE_MS = 5000;
// An analysis that failed on our side (engine or billing unreachable) is tried again after this.
const RETRY_DELAY_MS = 5000;

/**
 * Works the viability queue in the background: claims URLs from the database (any process of either
 * runtime), at most VIABILITY_CONCURRENCY here and VIABILITY_CLIENT_CONCURRENCY per client across all
 * processes, renews each lease while its analysis runs, and stores the result under the claim's
 * attempt. A run is never left `in_progress`: a dead worker's URL is taken over when its lease runs
 * out (at once in the embedded runtime after a restart), a failure on our side is retried after a
 * pause, and a URL whose analysis was started VIABILITY_MAX_ATTEMPTS times ends with that failure as
 * its verdict.
 */
@Injectable()
export class ViabilityWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ViabilityWorker');
  private readonly poll: PeriodicTask<void>;
  private readonly prune: PeriodicTask<number>;
  private readonly active = new Map<string, { claim: ClaimedUrl; done: Promise<void> }>();
  private stopping = false;
  private filling: Promise<void> | null = null;

  constructor(
    private readonly store: ViabilityRunStore,
    private readonly analysis: UrlAnalysis,
    private readonly prober: ChargedEngineProber,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(OpsEventPublisher) private readonly ops: OpsEventPublisher,
  ) {
    this.poll = new PeriodicTask('ViabilityWorker', config.viabilityPollIntervalMs, () => this.fill());
    this.prune = new PeriodicTask('ViabilityRetention', config.retentionSweepIntervalSeconds * 1000, () => this.pruneExpired());
  }

  /** The test's last URL is stored: ops tooling hears about it (after the commit). */
  private readonly announceCompleted = (run: CompletedViabilityRun): void =>
    this.ops.publish(OPS_SUBJECTS.viabilityCompleted, {
      test_id: run.runId,
      client_id: run.clientId,
      total_urls: run.totalUrls,
      strategies: run.strategies,
    });

  async onApplicationBootstrap(): Promise<void> {
    // Embedded: this process is the database's only user, so anything `analysing` was a previous run's.
    if (!this.config.natsUrl) {
      const requeued = await this.store.requeueAbandoned();
      if (requeued > 0) this.logger.warn(`${requeued} URL(s) were under analysis when the platform stopped: analysing them again`);
    }
    this.poll.start();
    this.prune.start();
    this.nudge();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await Promise.all([this.poll.stop(), this.prune.stop()]);
    // The grace is a bound, not work: unref'd, it neither outlives the race nor keeps the process up.
    await Promise.race([
      Promise.allSettled([...this.active.values()].map((a) => a.done)),
      sleep(SHUTDOWN_GRACE_MS, undefined, { ref: false }),
    ]);
    // Whatever still runs goes back to the queue now rather than after its lease.
    for (const { claim } of this.active.values()) await this.store.renew(claim, 0).catch(() => undefined);
  }

  /** New work may be waiting (a run was just created here): look now instead of at the next tick. */
  nudge(): void {
    void this.fill().catch((error: unknown) => this.logger.warn(`claiming failed: ${String(error)}`));
  }

  private fill(): Promise<void> {
    // `.finally` runs after the assignment even when there is no room at all (an async body that
    // returns at once would clear the slot before it is set, and no claim would ever be made again).
    this.filling ??= this.claimWhileRoom().finally(() => (this.filling = null));
    return this.filling;
  }

  private async claimWhileRoom(): Promise<void> {
    while (!this.stopping && this.active.size < this.config.viabilityConcurrency) {
      const claim = await this.store.claimNext(this.leaseMs(), this.config.viabilityClientConcurrency);
      if (!claim) return;
      const key = `${claim.runId}:${claim.position}`;
      const done = this.work(claim).finally(() => {
        this.active.delete(key);
        if (!this.stopping) this.nudge();
      });
      this.active.set(key, { claim, done });
    }
  }

  private async work(claim: ClaimedUrl): Promise<void> {
    const heartbeat = setInterval(
      () => void this.store.renew(claim, this.leaseMs()).catch(() => undefined),
      Math.max(1000, this.leaseMs() / 3),
    );
    heartbeat.unref();
    try {
      if (claim.attempt > this.config.viabilityMaxAttempts) {
        await this.store.complete(
          claim,
          entryWithoutEvidence(
            claim.url,
            `the analysis was started ${claim.attempt - 1} times without finishing (its worker stopped or failed each time)`,
          ),
          this.announceCompleted,
        );
        return;
      }
      const result = await this.analysis.analyse(claim.url, claim.depth, this.prober.forClaim(claim));
      if (!(await this.store.complete(claim, result, this.announceCompleted)))
        this.logger.warn(`${claim.url} (run ${claim.runId}) was taken over by another worker; its answer counts`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (claim.attempt >= this.config.viabilityMaxAttempts) {
        await this.store
          .complete(
            claim,
            entryWithoutEvidence(claim.url, `the analysis failed ${claim.attempt} times on our side: ${message}`),
            this.announceCompleted,
          )
          .catch(() => undefined);
      } else {
        this.logger.warn(
          `analysis of ${claim.url} (run ${claim.runId}, attempt ${claim.attempt}) failed: ${message}; trying again in ${RETRY_DELAY_MS} ms`,
        );
        await this.store.renew(claim, RETRY_DELAY_MS).catch(() => undefined);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  private leaseMs(): number {
    return this.config.viabilityLeaseSeconds * 1000;
  }

  private pruneExpired(): Promise<number> {
    return this.store.prune(new Date(this.clock.now().getTime() - this.config.resultRetentionHours * 3_600_000));
  }
}
