import { CancelRunCommand, RunView } from '@lib/contracts';
import { platformMetrics } from '@lib/metrics';
import { DATABASE, DatabaseConnection, type SqlTransactionScope } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { RunNotFoundError } from '../batch-orchestrator.errors';
import { allowedMove } from './run-transitions';
import { JobDispatcher } from '../dispatch/job-dispatcher';
import { JobCompletion } from '../job-lifecycle/job-completion';
import { JobStore } from '../persistence/jobs.store';
import { type LockedRun, RunStore } from '../persistence/runs.store';
import { RunViews } from './run-views';

/**
 * Cancelling a run, a batch or (through its close) a project's batches, inside the caller's
 * transaction with the run locked: every job that has not started ends `cancelled` — never run,
 * never charged — and is counted as failed and cancelled, so total = success + failed + timeout
 * keeps holding. Jobs in flight finish and are charged as usual. The run then completes through
 * the one completion path (so its webhook is written once): now, when nothing is left in
 * flight, or when the last of those jobs ends.
 */
@Injectable()
export class RunCancellation {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly jobs: JobStore,
    private readonly runs: RunStore,
    private readonly completion: JobCompletion,
    private readonly views: RunViews,
    private readonly dispatcher: JobDispatcher,
  ) {}

  async cancelWithin(tx: SqlTransactionScope, run: LockedRun, now: Date): Promise<{ cancelledJobs: number; completed: boolean }> {
    const cancelledJobs = await this.jobs.cancelUnstarted(tx, run.id, now);
    if (cancelledJobs > 0)
      tx.afterCommit(() => platformMetrics.jobsFinished.inc({ status: 'cancelled', outcome: 'cancelled' }, cancelledJobs));
    await this.runs.setState(tx, run.id, 'cancelling');
    const { lastJob } = await this.runs.countCancelledJobs(tx, run.id, cancelledJobs);
    if (lastJob) await this.completion.completeRun(tx, run.id, now);
    return { cancelledJobs, completed: lastJob };
  }

  /** POST …/runs/{run_id}/cancel (not in the spec): a collection run, by the batch table's cancel row. */
  async cancelCollectionRun(command: CancelRunCommand): Promise<RunView> {
    const now = this.clock.now();
    const view = await this.db.sql.transaction(async (tx) => {
      await this.jobs.lockDispatchDecision(tx);
      const run = await this.runs.lock(tx, {
        runId: command.run_id,
        clientId: command.client_id,
        kind: 'collection',
        collectionId: command.collection_id,
      });
      if (!run) throw new RunNotFoundError(`Run ${command.run_id} not found under collection ${command.collection_id}.`);
      if (allowedMove(run, 'cancel') !== 'unchanged') await this.cancelWithin(tx, run, now);
      return this.views.find(command.client_id, command.collection_id, command.run_id, tx);
    });
    // Cancelled dispatches no worker had started freed their places.
    this.dispatcher.requestDispatch(command.client_id);
    return view!;
  }
}
