import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { PAGE_CACHE_MAX_AGE_SECONDS, type SweepRetentionReply } from '@lib/contracts';
import { CLOCK, Clock, PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { JobResultStore } from '../persistence/job-results.store';
import { ListedJobStore } from '../persistence/listed-jobs.store';
import { PageCacheStore } from '../persistence/page-cache.store';
import { PageVersionStore } from '../persistence/page-versions.store';

// Deleted in slices, so one sweep never holds long locks on a busy table.
const SLICE = 5000;

/**
 * Retention (operator contract §2): result bodies go RESULT_RETENTION_HOURS after their job
 * completed (then the result endpoint answers result_expired); listing rows go
 * LISTING_RETENTION_DAYS after completion (then cursors find an empty page); a page cache entry goes
 * when the origin has not given or confirmed it for the longest max_age (30 days), since no request
 * could be served it any more (a revalidation would save only a 304's worth); a monitor's history
 * (its changes, its pages' superseded or unseen versions) after MONITOR_HISTORY_DAYS. Runs stay. Runs on a
 * schedule in every replica; deletes are idempotent, so replicas need no coordination.
 */
@Injectable()
export class RetentionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RetentionSweeper');
  private readonly schedule: PeriodicTask<SweepRetentionReply>;

  constructor(
    private readonly results: JobResultStore,
    private readonly jobs: ListedJobStore,
    private readonly pageCache: PageCacheStore,
    private readonly pageVersions: PageVersionStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {
    this.schedule = new PeriodicTask('RetentionSweeper', config.retentionSweepIntervalSeconds * 1000, () => this.prune());
  }

  onApplicationBootstrap(): void {
    this.schedule.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.schedule.stop();
  }

  /** One pass now; concurrent callers share the pass in progress. */
  sweep(): Promise<SweepRetentionReply> {
    return this.schedule.runNow();
  }

  private async prune(): Promise<SweepRetentionReply> {
    const now = this.clock.now().getTime();
    const resultsBefore = new Date(now - this.config.resultRetentionHours * 3_600_000);
    const listingBefore = new Date(now - this.config.listingRetentionDays * 86_400_000);
    const results_pruned = await this.sliced((slice) => this.results.pruneCompletedBefore(resultsBefore, slice));
    const jobs_pruned = await this.sliced((slice) => this.jobs.pruneFinished(listingBefore, slice));
    const cacheBefore = new Date(now - PAGE_CACHE_MAX_AGE_SECONDS * 1000);
    const page_cache_pruned = await this.sliced((slice) => this.pageCache.pruneValidatedBefore(cacheBefore, slice));
    const historyBefore = new Date(now - this.config.monitorHistoryDays * 86_400_000);
    const page_versions_pruned = await this.sliced((slice) => this.pageVersions.pruneVersionsBefore(historyBefore, slice));
    const page_changes_pruned = await this.sliced((slice) => this.pageVersions.pruneChangesBefore(historyBefore, slice));
    if (results_pruned + jobs_pruned + page_cache_pruned + page_versions_pruned + page_changes_pruned > 0)
      this.logger.log(
        `retention: ${results_pruned} result bodies, ${jobs_pruned} listing rows, ${page_cache_pruned} page cache entries, ${page_versions_pruned} page versions and ${page_changes_pruned} page changes pruned`,
      );
    return { results_pruned, jobs_pruned, page_cache_pruned, page_versions_pruned, page_changes_pruned };
  }

  private async sliced(prune: (slice: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await prune(SLICE);
      total += deleted;
      if (deleted < SLICE) return total;
    }
  }
}
