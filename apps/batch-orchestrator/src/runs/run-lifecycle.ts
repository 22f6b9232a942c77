import type { RunAction, RunState } from '@lib/contracts';
import type { SqlTransactionScope } from '@lib/persistence';
import { Injectable } from '@nestjs/common';
import { JobStore } from '../persistence/jobs.store';
import { type LockedRun, RunStore } from '../persistence/runs.store';
import { RunCancellation } from './run-cancellation';
import type { Transition } from './run-transitions';

/**
 * A run's lifecycle changes, whatever its kind, inside the caller's transaction with the run
 * locked and the dispatch decision held: cancel through RunCancellation (unstarted jobs end
 * `cancelled`, the run completes when nothing is in flight), any other move sets the state, and a
 * pause takes back the dispatches no worker has started. The caller asks for a dispatch pass after
 * commit (run and resume let jobs go; pause and cancel freed places).
 */
@Injectable()
export class RunLifecycle {
  constructor(
    private readonly runs: RunStore,
    private readonly jobs: JobStore,
    private readonly cancellation: RunCancellation,
  ) {}

  async applyWithin(tx: SqlTransactionScope, run: LockedRun, action: RunAction, move: Transition<RunState>, now: Date): Promise<void> {
    if (move === 'unchanged' || move === 'refused') return;
    if (action === 'cancel') {
      await this.cancellation.cancelWithin(tx, run, now);
      return;
    }
    await this.runs.setState(tx, run.id, move.to);
    if (move.to === 'paused') await this.jobs.recallUnstarted(tx, [run.id]);
  }
}
