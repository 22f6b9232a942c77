import { RUN_COMPLETION_EVENTS, type RunState, type RunKind } from '@lib/contracts';
import type { CompletedRun } from '../persistence/runs.store';
import type { LockedJob } from '../persistence/jobs.store';
import type { JobClassification } from '../job-lifecycle/job-classification';

/** spec 6's counters of a run that ran out, common to every kind's completion webhook. */
export interface RunCounters {
  status: 'completed';
  total_requests: number;
  success_requests: number;
  failed_requests: number;
  timeout_requests: number;
  cancelled_requests: number;
}

/** What differs between run kinds on the job engine: one row per kind (the compiler asks for a new kind's row). */
export interface RunKindRules {
  /** What the run is called in the client's words (`The crawl is completed: …`). */
  noun: string;
  /**
   * The state a run of the kind opens in: a collection's run and a crawl start `running` (their
   * jobs are listed at the start, or found as it goes); a project's batch `open`, taking jobs until
   * the client runs it.
   */
  openingState: RunState;
  /** How its jobs come: listed from a stored collection at the start, appended by the client, or found by discovery. */
  jobSource: 'collection' | 'client' | 'discovery' | 'schedule';
  /**
   * The body of the run's completion webhook (webhook-sender adds the absolute results_url from
   * `results_path`; it knows the public base URL).
   */
  completionWebhook(run: CompletedRun, counters: RunCounters, now: Date): Record<string, unknown>;
  /**
   * Whether the run completes when its last job ends, in this state. A crawl's run does not while
   * it runs: its discovery may still add pages from the page that just ended, and seals the run
   * itself (crawl-runs/); once cancelling, nothing is added and the last job ends it.
   */
  endsWithLastJob(state: RunState): boolean;
  /**
   * The body of the webhook announcing one of the run's jobs when it ends, for a run that asked
   * for them (`runs.page_webhooks`); null: the kind has none.
   */
  pageWebhook(job: LockedJob, outcome: JobClassification, now: Date): Record<string, unknown> | null;
}

export const RUN_KIND_RULES: Record<RunKind, RunKindRules> = {
  // spec 6's `run.completed`.
  collection: {
    noun: 'run',
    openingState: 'running',
    jobSource: 'collection',
    completionWebhook: (run, counters, now) => ({
      event: RUN_COMPLETION_EVENTS.collection,
      run_id: run.id,
      collection_id: run.collectionId,
      ...counters,
      job_ids: run.jobIds,
      results_path: `/v1/async/collections/${run.collectionId}/runs/${run.id}`,
      timestamp: now.toISOString(),
    }),
    endsWithLastJob: () => true,
    pageWebhook: () => null,
  },
  // The same fields plus the batch and project ids and the lifecycle state (decision 0014).
  batch: {
    noun: 'batch',
    openingState: 'open',
    jobSource: 'client',
    completionWebhook: (run, counters, now) => ({
      event: RUN_COMPLETION_EVENTS.batch,
      batch_id: run.id,
      run_id: run.id,
      project_id: run.projectId,
      state: run.state,
      ...counters,
      results_path: `/v1/jobs?batch_id=${run.id}`,
      timestamp: now.toISOString(),
    }),
    endsWithLastJob: () => true,
    pageWebhook: () => null,
  },
  // Issue 39: the crawl's pages; completed when discovery seals it, cancelled when its last job ends.
  crawl: {
    noun: 'crawl',
    openingState: 'running',
    jobSource: 'discovery',
    completionWebhook: (run, counters, now) => ({
      event: RUN_COMPLETION_EVENTS.crawl,
      crawl_id: run.id,
      run_id: run.id,
      state: run.state,
      ...counters,
      credits_charged: run.creditsCharged,
      results_path: `/v1/jobs?batch_id=${run.id}`,
      timestamp: now.toISOString(),
    }),
    endsWithLastJob: (state) => state === 'cancelling' || state === 'cancelled',
    // `crawl.page`: which page ended and how; the page itself is one GET away (results_url), so a
    // delivery stays a few hundred bytes however large the page.
    // A page that is another page (ended `cancelled`, duplicate_of) is not announced: it is in the crawl's skipped.duplicate.
    pageWebhook: (job, outcome, now) =>
      outcome.status === 'cancelled'
        ? null
        : {
            event: 'crawl.page',
            crawl_id: job.runId,
            run_id: job.runId,
            job_id: job.id,
            url: job.url,
            status: outcome.status,
            success: outcome.isSuccess,
            status_code: outcome.status === 'completed' ? outcome.body.statusCode : null,
            error: outcome.error,
            credits: outcome.credits,
            results_path: `/v1/jobs/${job.id}/data`,
            timestamp: now.toISOString(),
          },
  },
  // Issue 63: a monitor's tick, its pages listed when its schedule fell due (monitors/). A tick run
  // has no callback_url of its own: the monitor's tick reporter sends `monitor.changed` with the
  // tick's changed pages once the run completed, and only when one changed (decision 0038).
  monitor: {
    noun: 'tick',
    openingState: 'running',
    jobSource: 'schedule',
    completionWebhook: (run, counters, now) => ({
      event: RUN_COMPLETION_EVENTS.monitor,
      tick_id: run.id,
      run_id: run.id,
      ...counters,
      credits_charged: run.creditsCharged,
      results_path: `/v1/jobs?batch_id=${run.id}`,
      timestamp: now.toISOString(),
    }),
    endsWithLastJob: () => true,
    pageWebhook: () => null,
  },
};
