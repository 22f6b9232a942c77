import {
  CONTENT_RULES_VERSION,
  type CrawlRequest,
  type CrawlView,
  MONITOR_PAGE_DIRECTIVES,
  type MonitorPageDirectives,
  nextTickAfter,
  OPS_SUBJECTS,
  type PageChangeView,
  RUN_COMPLETION_EVENTS,
  SUBJECTS,
  SUCCESS_RULES,
} from '@lib/contracts';
import { RemoteAppError } from '@lib/errors';
import { MessageBus, OpsEventPublisher } from '@lib/messaging';
import { platformMetrics } from '@lib/metrics';
import { DATABASE, DatabaseConnection, enqueueWebhook, type SqlTransactionScope } from '@lib/persistence';
import { CLOCK, Clock, PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { JobDispatcher } from '../dispatch/job-dispatcher';
import { RunOpsEvents } from '../job-lifecycle/run-ops-events';
import { JobStore } from '../persistence/jobs.store';
import { type MonitorRow, MonitorStore, type UnreportedTick } from '../persistence/monitors.store';
import { RunStore } from '../persistence/runs.store';
import { RUN_KIND_RULES } from '../runs/run-kind-rules';

/** Errors that refuse a crawl's start for good (its scope or its target), not an outage. */
const REFUSALS = /^(discovery|target)\./;
/** How often every replica looks for due monitors and completed ticks. */
const TICK_PASS_MS = 1000;
/** Ticks opened, and completed ticks reported, per pass at most (the rest wait a second). */
const PER_PASS = 50;
/**
 * A crawl-scope tick whose crawl has not started this long after the tick opened is started again
 * (the replica that opened it died, or site-discovery was away): past a start's own sitemap read.
 */
const CRAWL_START_RETRY_MS = 20_000;
/** A crawl's start reads robots.txt and the sitemaps first (site-discovery bounds that at 15 s). */
const CRAWL_START_TIMEOUT_MS = 60_000;
/**
 * How long a crawl-scope tick whose run has completed waits for its crawl to say so too (site-discovery
 * seals the run, then records the crawl's end; a worker that died between the two has its crawl taken
 * over within its lease, DISCOVERY_LEASE_SECONDS at most 600). Past it the tick is reported without
 * removals: a monitor never waits on a crawl that will not settle.
 */
const CRAWL_SETTLE_MS = 15 * 60_000;

/**
 * The monitors' scheduler and tick reporter, in every batch-orchestrator replica (decision 0038).
 * A tick is taken in one transaction — the due monitor locked (SKIP LOCKED: another replica takes
 * another monitor, never the same), its next time moved, its run of kind `monitor` and one job per
 * URL written — so one due schedule is one tick, a replica killed mid-way leaves either all of it or
 * nothing, and the next time is the schedule's next after now (one catch-up tick after an outage).
 * A completed tick is reported from its row (reported_at null is the outbox): its changed pages
 * asked of result-store, its `monitor.changed` webhook written with the row marked, once.
 */
@Injectable()
export class MonitorTicker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MonitorTicker');
  private readonly schedule = new PeriodicTask('MonitorTicker', TICK_PASS_MS, () => this.pass());

  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly monitors: MonitorStore,
    private readonly runs: RunStore,
    private readonly jobs: JobStore,
    private readonly dispatcher: JobDispatcher,
    private readonly opsEvents: RunOpsEvents,
    private readonly ops: OpsEventPublisher,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.schedule.stop();
  }

  /** A monitor fell due out of turn (created, ticked on demand): take it now rather than within the second. */
  wake(): void {
    void this.schedule.runNow().catch((error: unknown) => this.logger.warn(`pass failed: ${String(error)}`));
  }

  /** One pass: open the ticks due, start the crawls of crawl-scope ticks that lost theirs, report the ticks completed. */
  async pass(): Promise<{ opened: number; reported: number }> {
    let opened = 0;
    while (opened < PER_PASS && (await this.openNextTick())) opened += 1;
    const retryBefore = new Date(this.clock.now().getTime() - CRAWL_START_RETRY_MS);
    for (const tick of await this.monitors.awaitingCrawl(retryBefore, PER_PASS)) await this.startCrawl(tick.monitor, tick.runId);
    let reported = 0;
    for (const tick of await this.monitors.unreported(PER_PASS)) if (await this.report(tick)) reported += 1;
    return { opened, reported };
  }

  private async openNextTick(): Promise<boolean> {
    const now = this.clock.now();
    const opened = await this.db.sql.transaction(async (tx) => {
      const monitor = await this.monitors.lockDue(tx, now);
      if (!monitor) return null;
      const runId = randomUUID();
      await this.monitors.startTick(tx, monitor, runId, now, nextTickAfter(monitor.schedule, now));
      // A crawl scope's pages are found by its crawl, whose run is the tick's: started once this commits.
      if (monitor.crawl) return { monitor, runId, crawl: true };
      await this.runs.insert(tx, {
        id: runId,
        kind: 'monitor',
        state: RUN_KIND_RULES.monitor.openingState,
        clientId: monitor.clientId,
        name: monitor.name ?? undefined,
        totalRequests: monitor.urls.length,
        maxConcurrency: monitor.maxConcurrency,
        monthlyCredits: monitor.monthlyCredits,
        callbackUrl: null,
        successCriterion: { version: CONTENT_RULES_VERSION, rules: [...SUCCESS_RULES] },
        createdAt: now,
      });
      await this.jobs.insertCrawlPages(
        tx,
        { runId, clientId: monitor.clientId, firstPosition: 0, now },
        monitor.urls.map((url) => ({ job_id: randomUUID(), url, request: pageRequestOf(monitor, runId, url) })),
      );
      await this.runs.recordJobIds(tx, runId);
      this.opsEvents.runStarted(tx, {
        id: runId,
        kind: 'monitor',
        clientId: monitor.clientId,
        collectionId: null,
        projectId: null,
        totalRequests: monitor.urls.length,
      });
      return { monitor, runId, crawl: false };
    });
    if (opened === null) return false;
    if (opened.crawl) await this.startCrawl(opened.monitor, opened.runId);
    else this.dispatcher.requestDispatch(opened.monitor.clientId);
    return true;
  }

  /**
   * A crawl-scope tick's crawl, started on site-discovery under the tick's id (a repeat answers the
   * crawl it already is). A refusal (the start URL is no longer allowed, robots.txt disallows
   * reading it) ends the tick with its reason and no change; anything else is tried again by a
   * later pass (awaitingCrawl).
   */
  private async startCrawl(monitor: MonitorRow, runId: string): Promise<void> {
    try {
      await this.bus.request(
        SUBJECTS.discovery.crawlCreate,
        {
          client_id: monitor.clientId,
          robots_override_allowed: false,
          max_concurrency: monitor.maxConcurrency,
          monthly_credits: monitor.monthlyCredits,
          crawl_id: runId,
          request: { ...(monitor.crawl as unknown as CrawlRequest), scrape: pageRequestOf(monitor, runId) },
        },
        { correlationId: `tick:${runId}`, timeoutMs: CRAWL_START_TIMEOUT_MS },
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!(error instanceof RemoteAppError && REFUSALS.test(error.code))) {
        this.logger.warn(`tick ${runId} of monitor ${monitor.id}: its crawl did not start (${message}); trying again`);
        return;
      }
      const ended = await this.db.sql.transaction((tx) => this.monitors.endWithoutRun(tx, runId, message, this.clock.now()));
      if (ended) this.logger.warn(`tick ${runId} of monitor ${monitor.id}: its crawl was refused (${message})`);
    }
  }

  private async report(tick: UnreportedTick): Promise<boolean> {
    const scope = tick.crawlScope ? await this.crawlOutcome(tick) : 'partial';
    // Its run is sealed but its crawl has not recorded its end yet: whether it found everything is not known.
    if (scope === 'settling') return false;
    if (scope === 'found-everything')
      await this.bus.request(
        SUBJECTS.pageVersions.recordUnseen,
        { client_id: tick.clientId, monitor_id: tick.monitorId, run_id: tick.runId },
        { timeoutMs: 30_000 },
      );
    const { changes } = await this.bus.request(SUBJECTS.pageVersions.changesOfTick, { run_id: tick.runId }, { timeoutMs: 10_000 });
    const now = this.clock.now();
    return this.db.sql.transaction(async (tx) => {
      const monitor = await this.monitors.lock(tx, tick.clientId, tick.monitorId);
      if (!(await this.monitors.markReported(tx, tick.runId, changes.length, now))) return false;
      // A deleted monitor's last tick is not announced; nobody listens for it any more.
      const announced = Boolean(monitor?.webhookUrl) && (changes.length > 0 || monitor?.notify === 'always');
      this.tickReported(tx, tick, changes, announced);
      if (!monitor?.webhookUrl || !announced) return true;
      await enqueueWebhook(tx, {
        id: randomUUID(),
        runId: tick.runId,
        subjectId: tick.runId,
        clientId: tick.clientId,
        callbackUrl: monitor.webhookUrl,
        payload: {
          event: RUN_COMPLETION_EVENTS.monitor,
          monitor_id: monitor.id,
          tick_id: tick.runId,
          run_id: tick.runId,
          pages: tick.totalRequests,
          success_requests: tick.successRequests,
          failed_requests: tick.failedRequests,
          credits_charged: tick.creditsCharged,
          // A page no longer found has no job: nothing to read but its URL and when it was last there.
          changes: changes.map((change) => ({ ...change, results_path: change.job_id ? `/v1/jobs/${change.job_id}/data` : null })),
          results_path: `/v1/jobs?batch_id=${tick.runId}`,
          timestamp: now.toISOString(),
        },
        createdAt: now,
      });
      return true;
    });
  }

  /**
   * Whether a crawl-scope tick found every page its scope holds, so a page it did not see is gone
   * from the site: its crawl completed (not cancelled, not stopped by robots.txt or an empty start),
   * no page failed or timed out (a failed page's links are unknown), and none was left out for
   * max_pages. Any doubt leaves the monitor's pages as they were. `settling`: the crawl has not
   * recorded its end yet (its run is sealed first), so the answer waits for the next pass.
   */
  private async crawlOutcome(tick: UnreportedTick): Promise<'found-everything' | 'partial' | 'settling'> {
    if (tick.state !== 'completed' || tick.failedRequests > 0 || tick.timeoutRequests > 0) return 'partial';
    let crawl: CrawlView;
    try {
      crawl = await this.bus.request(
        SUBJECTS.discovery.crawlGet,
        { client_id: tick.clientId, crawl_id: tick.runId },
        { timeoutMs: 10_000 },
      );
    } catch (error) {
      // A crawl site-discovery does not know (never recorded, or pruned) found nothing to go by.
      if (error instanceof RemoteAppError && error.code === 'discovery.crawl_not_found') return 'partial';
      throw error;
    }
    if (crawl.status !== 'completed') {
      const waited = tick.completedAt ? this.clock.now().getTime() - tick.completedAt.getTime() : Infinity;
      return waited < CRAWL_SETTLE_MS ? 'settling' : 'partial';
    }
    return crawl.state === 'completed' && crawl.zero_pages_reason === null && crawl.skipped.over_limit === 0
      ? 'found-everything'
      : 'partial';
  }

  /** The tick's ops event and metrics, once its report is committed. */
  private tickReported(tx: SqlTransactionScope, tick: UnreportedTick, changes: PageChangeView[], webhook: boolean): void {
    const counts = { new: 0, changed: 0, removed: 0 };
    for (const change of changes) if (change.change_status !== 'same') counts[change.change_status] += 1;
    tx.afterCommit(() => {
      platformMetrics.monitorTicks.inc({ outcome: changes.length > 0 ? 'changed' : 'quiet' });
      for (const [status, n] of Object.entries(counts)) if (n > 0) platformMetrics.monitorPageChanges.inc({ change_status: status }, n);
      this.ops.publish(OPS_SUBJECTS.monitorTickReported, {
        monitor_id: tick.monitorId,
        tick_id: tick.runId,
        client_id: tick.clientId,
        pages: tick.totalRequests,
        success_requests: tick.successRequests,
        failed_requests: tick.failedRequests,
        credits_charged: tick.creditsCharged,
        changes: counts,
        webhook,
      });
    });
  }
}

/**
 * A monitor's page as a job's request: its scrape options, its URL, HTML (a monitor compares its own
 * markdown), and its directives. Without a URL: the scrape options of every page of a crawl-scope
 * tick's crawl (which adds each page's URL).
 */
function pageRequestOf(monitor: MonitorRow, runId: string, url?: string): Record<string, unknown> {
  const directives: MonitorPageDirectives = {
    monitor_id: monitor.id,
    run_id: runId,
    ignore: monitor.ignore,
    ...(monitor.crawl ? { crawl_scope: true } : {}),
  };
  return {
    ...monitor.scrape,
    ...(url === undefined ? {} : { url }),
    format: 'html',
    ...(monitor.extract ? { extract: monitor.extract } : {}),
    [MONITOR_PAGE_DIRECTIVES]: directives,
  };
}
