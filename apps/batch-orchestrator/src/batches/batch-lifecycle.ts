import {
  AppendJobsCommand,
  BatchReference,
  BatchTransitionCommand,
  BatchView,
  BatchWriteReply,
  CONTENT_RULES_VERSION,
  CreateBatchCommand,
  MAX_BATCH_JOBS,
  MAX_BATCH_WRITE_REQUESTS,
  SUCCESS_RULES,
} from '@lib/contracts';
import { DATABASE, DatabaseConnection, type SqlTransaction } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { BatchNotFoundError, InvalidBatchError, InvalidStateError, ProjectNotFoundError } from '../batch-orchestrator.errors';
import { CollectionItemsValidator, counted, ItemsVerdict, writeSummaryOf } from '../collections/collection-items.validator';
import { JobDispatcher } from '../dispatch/job-dispatcher';
import { RunOpsEvents } from '../job-lifecycle/run-ops-events';
import { JobStore } from '../persistence/jobs.store';
import { ProjectStore } from '../persistence/projects.store';
import { type BatchRow, type LockedRun, RunStore } from '../persistence/runs.store';
import { RUN_KIND_RULES } from '../runs/run-kind-rules';
import { PROJECT_TRANSITIONS } from '../projects/project-transitions';
import { RunLifecycle } from '../runs/run-lifecycle';
import { allowedMove } from '../runs/run-transitions';
import { unixSecondsOf } from '../persistence/unix-seconds';

/**
 * Batches (spec 4.8, decision 0014): a batch is a run of kind `batch` whose jobs are ordinary job
 * rows, so dispatch, claims, leases, retries, classification, results, retention, charges and the
 * completion webhook are the collection runs' code. Items are checked by the collection's
 * validator after the project's defaults are merged under them. Every lifecycle change locks the
 * run (and takes the dispatch lock where dispatch could interleave) and follows RUN_TRANSITIONS.
 */
@Injectable()
export class BatchLifecycle {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly projects: ProjectStore,
    private readonly runs: RunStore,
    private readonly jobs: JobStore,
    private readonly items: CollectionItemsValidator,
    private readonly lifecycle: RunLifecycle,
    private readonly dispatcher: JobDispatcher,
    private readonly opsEvents: RunOpsEvents,
  ) {}

  async create(command: CreateBatchCommand): Promise<BatchWriteReply> {
    assertWriteSize(command.requests);
    const project = await this.projects.find(command.client_id, command.project_id);
    if (!project) throw new ProjectNotFoundError(`Project ${command.project_id} not found.`);
    const callbackUrl = command.callback_url === undefined ? project.callbackUrl : command.callback_url;
    if (command.callback_url !== undefined) await this.items.vetCallback(command.callback_url);
    // Vetted (DNS) before the transaction, so no lock is held across lookups.
    const verdict = await this.items.check(command.requests.map((item) => withDefaults(item, project.defaults)));
    const batchId = randomUUID();
    const now = this.clock.now();
    return this.db.sql.transaction(async (tx) => {
      const locked = await this.projects.lock(tx, command.client_id, command.project_id);
      if (!locked) throw new ProjectNotFoundError(`Project ${command.project_id} not found.`);
      if (PROJECT_TRANSITIONS[locked.status].write === 'refused')
        throw new InvalidStateError(`Project ${locked.id} is ${locked.status}: it takes no new batches.`, { state: locked.status });
      const state = RUN_KIND_RULES.batch.openingState;
      await this.runs.insert(tx, {
        id: batchId,
        kind: 'batch',
        state,
        totalRequests: 0,
        projectId: locked.id,
        clientId: command.client_id,
        name: command.name,
        maxConcurrency: command.max_concurrency,
        monthlyCredits: command.monthly_credits,
        callbackUrl,
        successCriterion: { version: CONTENT_RULES_VERSION, rules: [...SUCCESS_RULES] },
        createdAt: now,
      });
      const run: LockedRun = {
        id: batchId,
        kind: 'batch',
        clientId: command.client_id,
        projectId: locked.id,
        status: 'in_progress',
        state,
        totalRequests: 0,
      };
      return this.addItems(tx, command.client_id, run, verdict, command, now, 'create');
    });
  }

  async append(command: AppendJobsCommand): Promise<BatchWriteReply> {
    assertWriteSize(command.requests);
    const batch = await this.runs.findBatch(command.client_id, command.batch_id);
    if (!batch) throw notFound(command.batch_id);
    // Refused early (before any DNS lookup) when the state already says no; checked again under the lock.
    allowedMove({ kind: 'batch', state: batch.state }, 'append');
    const project = await this.projects.find(command.client_id, batch.projectId);
    const verdict = await this.items.check(command.requests.map((item) => withDefaults(item, project?.defaults ?? {})));
    const now = this.clock.now();
    const reply = await this.db.sql.transaction(async (tx) => {
      const run = await this.lockBatch(tx, command.client_id, command.batch_id);
      allowedMove(run, 'append');
      return this.addItems(tx, command.client_id, run, verdict, command, now, 'append');
    });
    if (reply.state === 'running' && reply.added_requests > 0) this.dispatcher.requestDispatch(command.client_id);
    return reply;
  }

  async transition(command: BatchTransitionCommand): Promise<BatchView> {
    const now = this.clock.now();
    const view = await this.db.sql.transaction(async (tx) => {
      await this.jobs.lockDispatchDecision(tx);
      const run = await this.lockBatch(tx, command.client_id, command.batch_id);
      if (command.action === 'run' && run.state === 'open' && run.totalRequests > 0)
        this.opsEvents.runStarted(tx, {
          id: run.id,
          kind: 'batch',
          clientId: command.client_id,
          collectionId: null,
          projectId: run.projectId,
          totalRequests: run.totalRequests,
        });
      const move = allowedMove(run, command.action);
      if (move !== 'unchanged' && command.action === 'run' && run.totalRequests === 0)
        throw new InvalidStateError(`Batch ${run.id} has no jobs to run: append some first.`, { state: run.state });
      await this.lifecycle.applyWithin(tx, run, command.action, move, now);
      if (move !== 'unchanged' && command.action === 'run') await this.runs.grow(tx, run.id, 0, limitsOf(command));
      return this.views(tx, command.client_id, run.id);
    });
    // Run and resume let its jobs go; pause and cancel freed the places of recalled dispatches.
    this.dispatcher.requestDispatch(command.client_id);
    return view;
  }

  async get(query: BatchReference): Promise<BatchView> {
    const row = await this.runs.findBatch(query.client_id, query.batch_id);
    if (!row) throw notFound(query.batch_id);
    return batchViewOf(row);
  }

  private async addItems(
    tx: SqlTransaction,
    clientId: string,
    run: LockedRun,
    verdict: ItemsVerdict,
    limits: Pick<CreateBatchCommand, 'max_concurrency' | 'monthly_credits'>,
    now: Date,
    what: 'create' | 'append',
  ): Promise<BatchWriteReply> {
    // Duplicates of jobs already in the batch are skipped like duplicates within the write.
    const existing = await this.jobs.keysOfRun(
      tx,
      run.id,
      verdict.accepted.map((item) => item.url),
    );
    const known = new Set(existing.map((key) => JSON.stringify([key.url, key.customId])));
    const fresh = verdict.accepted.filter((item) => !known.has(JSON.stringify([item.url, item.custom_id])));
    const duplicate_urls = [...verdict.duplicate_urls, ...verdict.accepted.filter((item) => !fresh.includes(item)).map((item) => item.url)];
    if (run.totalRequests + fresh.length > MAX_BATCH_JOBS)
      throw new InvalidBatchError(
        `A batch holds at most ${MAX_BATCH_JOBS} jobs; it has ${run.totalRequests} and this write adds ${fresh.length}.`,
      );
    if (fresh.length > 0) {
      await this.jobs.insertItems(tx, { runId: run.id, projectId: run.projectId!, clientId, firstPosition: run.totalRequests, now }, fresh);
    }
    await this.runs.grow(tx, run.id, fresh.length, limitsOf(limits));
    const view = await this.views(tx, clientId, run.id);
    const jobs = counted(fresh.length, 'job');
    const head = what === 'append' ? `${jobs} appended` : `Batch created with ${jobs}`;
    return {
      ...view,
      added_requests: fresh.length,
      duplicates_skipped: duplicate_urls.length,
      duplicate_urls,
      blocked_urls: verdict.blocked_urls,
      invalid_items: verdict.invalid_items,
      message: writeSummaryOf(head, { ...verdict, duplicate_urls }),
    };
  }

  private async lockBatch(tx: SqlTransaction, clientId: string, batchId: string): Promise<LockedRun> {
    const run = await this.runs.lock(tx, { runId: batchId, clientId, kind: 'batch' });
    if (!run) throw notFound(batchId);
    return run;
  }

  private async views(tx: SqlTransaction, clientId: string, batchId: string): Promise<BatchView> {
    return batchViewOf((await this.runs.findBatch(clientId, batchId, tx))!);
  }
}

/** The project's defaults under the item's own fields (the item wins); anything but an object is left for the validator to refuse. */
function withDefaults(item: unknown, defaults: Record<string, unknown>): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  return { ...defaults, ...(item as Record<string, unknown>) };
}

function assertWriteSize(requests: unknown[]): void {
  if (requests.length > MAX_BATCH_WRITE_REQUESTS)
    throw new InvalidBatchError(`One write carries at most ${MAX_BATCH_WRITE_REQUESTS} requests; this one has ${requests.length}.`);
}

function limitsOf(limits: Pick<CreateBatchCommand, 'max_concurrency' | 'monthly_credits'>) {
  return { maxConcurrency: limits.max_concurrency, monthlyCredits: limits.monthly_credits };
}

function notFound(id: string): BatchNotFoundError {
  return new BatchNotFoundError(`Batch ${id} not found.`);
}

export function batchViewOf(row: BatchRow): BatchView {
  return {
    batch_id: row.id,
    project_id: row.projectId,
    name: row.name,
    state: row.state,
    status: row.status,
    total_requests: row.totalRequests,
    success_requests: row.successRequests,
    failed_requests: row.failedRequests,
    timeout_requests: row.timeoutRequests,
    cancelled_requests: row.cancelledRequests,
    credits_charged: row.creditsCharged,
    callback_url: row.callbackUrl,
    callback_status: row.callbackStatus,
    created_at: unixSecondsOf(row.createdAt),
    completed_at: row.completedAt ? unixSecondsOf(row.completedAt) : null,
  };
}
