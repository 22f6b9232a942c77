import {
  CreateProjectCommand,
  ListProjectsQuery,
  ProjectList,
  ProjectReference,
  ProjectsSummary,
  ProjectTransitionCommand,
  ProjectTransitionReply,
  ProjectView,
} from '@lib/contracts';
import { creditMonthOf, DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InvalidProjectError, InvalidStateError, ProjectNotFoundError } from '../batch-orchestrator.errors';
import { PROJECT_TRANSITIONS } from './project-transitions';
import { CollectionItemsValidator } from '../collections/collection-items.validator';
import { JobDispatcher } from '../dispatch/job-dispatcher';
import { JobStore } from '../persistence/jobs.store';
import { projectCreditsOf, type ProjectRow, ProjectStore } from '../persistence/projects.store';
import { RunStore } from '../persistence/runs.store';
import { RunCancellation } from '../runs/run-cancellation';
import { ProjectListingCursor } from './project-listing-cursor';
import { unixSecondsOf } from '../persistence/unix-seconds';

/**
 * Projects (spec 4.8, decision 0014): create, pause, resume, close, list and summarize. The
 * status lives in the database and dispatch reads it, so a pause holds across replicas and
 * restarts. Transitions take the dispatch lock, so no dispatch pass interleaves with a pause.
 */
@Injectable()
export class ProjectLifecycle {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly projects: ProjectStore,
    private readonly runs: RunStore,
    private readonly jobs: JobStore,
    private readonly items: CollectionItemsValidator,
    private readonly cancellation: RunCancellation,
    private readonly dispatcher: JobDispatcher,
  ) {}

  async create(command: CreateProjectCommand): Promise<ProjectView> {
    const problems = await this.items.defaultsProblems(command.defaults);
    if (problems.length > 0)
      throw new InvalidProjectError(`The project's defaults are not valid scrape-request fields: ${problems.join('; ')}.`);
    await this.items.vetCallback(command.callback_url);
    const now = this.clock.now();
    const row = {
      id: randomUUID(),
      clientId: command.client_id,
      name: command.name,
      status: 'active' as const,
      defaults: command.defaults,
      callbackUrl: command.callback_url,
      monthlyCreditCap: command.monthly_credit_cap,
      maxConcurrentJobs: command.max_concurrent_jobs,
      createdAt: now,
    };
    await this.projects.insert(row);
    return viewOf({ ...row, creditsMonth: null, creditsUsed: 0, updatedAt: now });
  }

  async transition(command: ProjectTransitionCommand): Promise<ProjectTransitionReply> {
    const now = this.clock.now();
    const outcome = await this.db.sql.transaction(async (tx) => {
      await this.jobs.lockDispatchDecision(tx);
      const project = await this.projects.lock(tx, command.client_id, command.project_id);
      if (!project) throw notFound(command.project_id);
      const move = PROJECT_TRANSITIONS[project.status][command.action];
      if (move === 'refused')
        throw new InvalidStateError(`The project is ${project.status}: it cannot ${command.action}.`, { state: project.status });
      if (move === 'unchanged') return { project, cancelled: [] as string[] };
      const updated = await this.projects.setStatus(tx, project.id, move.to, now);
      const cancelled: string[] = [];
      if (move.to === 'paused') {
        const live = await this.runs.lockLiveBatchesOf(tx, project.id);
        await this.jobs.recallUnstarted(
          tx,
          live.map((run) => run.id),
        );
      } else if (move.to === 'closed') {
        for (const run of await this.runs.lockLiveBatchesOf(tx, project.id)) {
          if (run.state !== 'cancelling') cancelled.push(run.id);
          await this.cancellation.cancelWithin(tx, run, now);
        }
      }
      return { project: updated, cancelled };
    });
    // Resumed: its waiting jobs may go. Paused or closed: recalled and cancelled dispatches freed places.
    this.dispatcher.requestDispatch(command.client_id);
    const view: ProjectTransitionReply = viewOf(outcome.project);
    if (command.action === 'close') view.cancelled_batches = outcome.cancelled;
    return view;
  }

  async get(query: ProjectReference): Promise<ProjectView> {
    const row = await this.projects.find(query.client_id, query.project_id);
    if (!row) throw notFound(query.project_id);
    return viewOf(row);
  }

  async list(query: ListProjectsQuery): Promise<ProjectList> {
    const after = query.cursor ? ProjectListingCursor.decode(query.cursor, query.status) : null;
    const rows = await this.projects.page(query.client_id, { status: query.status, after, limit: query.limit });
    const has_more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(viewOf),
      cursor_next:
        has_more && last ? ProjectListingCursor.encode({ createdAt: new Date(last.createdAt), id: last.id }, query.status) : null,
      has_more,
    };
  }

  async summary(clientId: string): Promise<ProjectsSummary> {
    const now = this.clock.now();
    const rows = await this.projects.summaries(clientId);
    return {
      month: creditMonthOf(now),
      items: rows.map((row) => {
        const used = projectCreditsOf(row, now);
        const reason =
          row.status !== 'active'
            ? row.status
            : row.monthlyCreditCap !== null && used >= row.monthlyCreditCap
              ? 'credit_cap_reached'
              : row.maxConcurrentJobs !== null && row.running >= row.maxConcurrentJobs
                ? 'concurrency_full'
                : null;
        return {
          project_id: row.id,
          name: row.name,
          status: row.status,
          jobs: {
            pending: row.pending,
            running: row.running,
            completed: row.completed,
            failed: row.failed,
            timeout: row.timeout,
            cancelled: row.cancelled,
          },
          outcomes: { success: row.succeeded, failed: row.unsuccessful, timeout: row.timeout, cancelled: row.cancelled },
          credits_used_this_month: used,
          monthly_credit_cap: row.monthlyCreditCap,
          max_concurrent_jobs: row.maxConcurrentJobs,
          has_capacity: reason === null,
          capacity_reason: reason,
        };
      }),
    };
  }
}

function notFound(id: string): ProjectNotFoundError {
  return new ProjectNotFoundError(`Project ${id} not found.`);
}

export function viewOf(row: ProjectRow): ProjectView {
  return {
    project_id: row.id,
    name: row.name,
    status: row.status,
    defaults: row.defaults ?? {},
    callback_url: row.callbackUrl,
    monthly_credit_cap: row.monthlyCreditCap,
    max_concurrent_jobs: row.maxConcurrentJobs,
    created_at: unixSecondsOf(row.createdAt),
    updated_at: unixSecondsOf(row.updatedAt),
  };
}
