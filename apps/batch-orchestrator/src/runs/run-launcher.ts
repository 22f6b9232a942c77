import { CONTENT_RULES_VERSION, RunView, StartRunCommand, SUCCESS_RULES } from '@lib/contracts';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CollectionEmptyError, CollectionNotFoundError } from '../batch-orchestrator.errors';
import { JobDispatcher } from '../dispatch/job-dispatcher';
import { CollectionStore } from '../persistence/collections.store';
import { JobStore } from '../persistence/jobs.store';
import { RunStore } from '../persistence/runs.store';
import { RunOpsEvents } from '../job-lifecycle/run-ops-events';
import { RUN_KIND_RULES } from './run-kind-rules';
import { RunViews } from './run-views';

/**
 * POST run: the run and one job per stored request are written in one transaction (so a run never
 * exists with part of its jobs), then the first jobs are dispatched within the client's
 * concurrency. Each job copies its request, so later edits or deletion of the collection do not
 * touch a run that has started.
 */
@Injectable()
export class RunLauncher {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly views: RunViews,
    private readonly dispatcher: JobDispatcher,
    private readonly collections: CollectionStore,
    private readonly runs: RunStore,
    private readonly jobs: JobStore,
    private readonly opsEvents: RunOpsEvents,
  ) {}

  async start(command: StartRunCommand): Promise<RunView> {
    const runId = randomUUID();
    const now = this.clock.now();
    const view = await this.db.sql.transaction(async (tx) => {
      const collection = await this.collections.lockForRun(tx, command.client_id, command.collection_id);
      if (!collection) throw new CollectionNotFoundError(`Collection ${command.collection_id} not found.`);
      if (collection.requestCount === 0) throw new CollectionEmptyError(`Collection ${command.collection_id} has no requests to run.`);
      await this.runs.insert(tx, {
        id: runId,
        kind: 'collection',
        state: RUN_KIND_RULES.collection.openingState,
        collectionId: command.collection_id,
        clientId: command.client_id,
        totalRequests: collection.requestCount,
        maxConcurrency: command.max_concurrency,
        monthlyCredits: command.monthly_credits,
        callbackUrl: collection.callbackUrl,
        successCriterion: { version: CONTENT_RULES_VERSION, rules: [...SUCCESS_RULES] },
        createdAt: now,
      });
      await this.jobs.insertForRun(tx, runId, command.collection_id, now);
      await this.runs.recordJobIds(tx, runId);
      this.opsEvents.runStarted(tx, {
        id: runId,
        kind: 'collection',
        clientId: command.client_id,
        collectionId: command.collection_id,
        projectId: null,
        totalRequests: collection.requestCount,
      });
      return this.views.find(command.client_id, command.collection_id, runId, tx);
    });
    await this.dispatcher.dispatchFor(command.client_id);
    return view!;
  }
}
