import {
  AppendCrawlPagesCommand,
  CONTENT_RULES_VERSION,
  type CrawlPageOutcome,
  CrawlPageOutcomesQuery,
  CrawlRunFigures,
  CrawlRunReference,
  CrawlRunTransitionCommand,
  OpenCrawlRunCommand,
  SUCCESS_RULES,
} from '@lib/contracts';
import { DATABASE, DatabaseConnection, type SqlTransaction } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { RunNotFoundError } from '../batch-orchestrator.errors';
import { JobDispatcher } from '../dispatch/job-dispatcher';
import { JobCompletion } from '../job-lifecycle/job-completion';
import { RunOpsEvents } from '../job-lifecycle/run-ops-events';
import { JobStore } from '../persistence/jobs.store';
import { type LockedRun, RunStore } from '../persistence/runs.store';
import { unixSecondsOf } from '../persistence/unix-seconds';
import { RunLifecycle } from '../runs/run-lifecycle';
import { allowedMove, RUN_TRANSITIONS } from '../runs/run-transitions';
import { RUN_KIND_RULES } from '../runs/run-kind-rules';

/**
 * A crawl's run (issue 39): a run of kind `crawl` whose jobs site-discovery adds as it finds pages,
 * so dispatch, claims, leases, retries, charges, results and the completion webhook are the job
 * engine's own. What differs is when it ends: never on its own while it runs (RUN_KIND_RULES), only
 * when site-discovery seals it after the last page's links were read; a cancel ends it when its last
 * job in flight does. Lifecycle changes follow decision 0014's batch table.
 */
@Injectable()
export class CrawlRuns {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly runs: RunStore,
    private readonly jobs: JobStore,
    private readonly completion: JobCompletion,
    private readonly lifecycle: RunLifecycle,
    private readonly dispatcher: JobDispatcher,
    private readonly opsEvents: RunOpsEvents,
  ) {}

  /** Opens the run, running with no job yet; opening it again (a retried create) changes nothing. */
  async open(command: OpenCrawlRunCommand): Promise<CrawlRunFigures> {
    const now = this.clock.now();
    await this.db.sql.transaction(async (tx) => {
      const opened = await this.runs.insert(tx, {
        id: command.run_id,
        kind: 'crawl',
        state: RUN_KIND_RULES.crawl.openingState,
        totalRequests: 0,
        clientId: command.client_id,
        name: command.name,
        maxConcurrency: command.max_concurrency,
        monthlyCredits: command.monthly_credits,
        callbackUrl: command.callback_url,
        pageWebhooks: command.page_webhooks,
        successCriterion: { version: CONTENT_RULES_VERSION, rules: [...SUCCESS_RULES] },
        createdAt: now,
      });
      if (opened)
        this.opsEvents.runStarted(tx, {
          id: command.run_id,
          kind: 'crawl',
          clientId: command.client_id,
          collectionId: null,
          projectId: null,
          totalRequests: 0,
        });
    });
    return this.get({ run_id: command.run_id });
  }

  /** Adds pages (ids already there skipped); refused quietly (added 0, the state) once the run is cancelling or over. */
  async append(command: AppendCrawlPagesCommand): Promise<{ added: number; state: CrawlRunFigures['state'] }> {
    const now = this.clock.now();
    const outcome = await this.db.sql.transaction(async (tx) => {
      const run = await this.lockCrawl(tx, command.run_id);
      if (RUN_TRANSITIONS[run.state].append === 'refused') return { added: 0, state: run.state, clientId: run.clientId };
      const added = await this.jobs.insertCrawlPages(
        tx,
        { runId: run.id, clientId: run.clientId, firstPosition: run.totalRequests, now },
        command.jobs,
      );
      await this.runs.addJobs(tx, run.id, added);
      return { added, state: run.state, clientId: run.clientId };
    });
    if (outcome.added > 0 && outcome.state === 'running') this.dispatcher.requestDispatch(outcome.clientId);
    return { added: outcome.added, state: outcome.state as CrawlRunFigures['state'] };
  }

  async outcomes(query: CrawlPageOutcomesQuery): Promise<{ finished: CrawlPageOutcome[] }> {
    return { finished: await this.jobs.endedOf(query.run_id, query.job_ids) };
  }

  /** Completes the run when every page job has ended (exactly once, with its webhook); otherwise leaves it as it is. */
  async seal(reference: CrawlRunReference): Promise<CrawlRunFigures> {
    const now = this.clock.now();
    await this.db.sql.transaction(async (tx) => {
      const run = await this.lockCrawl(tx, reference.run_id);
      if (run.status !== 'in_progress') return;
      if (await this.runs.allJobsEnded(tx, run.id)) await this.completion.completeRun(tx, run.id, now);
    });
    return this.get(reference);
  }

  async transition(command: CrawlRunTransitionCommand): Promise<CrawlRunFigures> {
    const now = this.clock.now();
    const clientId = await this.db.sql.transaction(async (tx) => {
      await this.jobs.lockDispatchDecision(tx);
      const run = await this.lockCrawl(tx, command.run_id);
      await this.lifecycle.applyWithin(tx, run, command.action, allowedMove(run, command.action), now);
      return run.clientId;
    });
    this.dispatcher.requestDispatch(clientId);
    return this.get(command);
  }

  async get(reference: CrawlRunReference): Promise<CrawlRunFigures> {
    const row = await this.runs.figures(reference.run_id, 'crawl');
    if (!row) throw new RunNotFoundError(`Crawl run ${reference.run_id} not found.`);
    return {
      run_id: reference.run_id,
      state: row.state as CrawlRunFigures['state'],
      status: row.status,
      total: row.total,
      success: row.success,
      failed: row.failed,
      timeout: row.timeout,
      cancelled: row.cancelled,
      credits_charged: row.credits,
      completed_at: row.completedAt ? unixSecondsOf(row.completedAt) : null,
    };
  }

  private async lockCrawl(tx: SqlTransaction, runId: string): Promise<LockedRun> {
    const run = await this.runs.lock(tx, { runId, kind: 'crawl' });
    if (!run) throw new RunNotFoundError(`Crawl run ${runId} not found.`);
    return run;
  }
}
