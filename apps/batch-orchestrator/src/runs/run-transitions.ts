import type { RunAction, RunState } from '@lib/contracts';
import { InvalidStateError } from '../batch-orchestrator.errors';
import type { LockedRun } from '../persistence/runs.store';
import { RUN_KIND_RULES } from './run-kind-rules';

/** What an operation does in a state: move to another, answer without change, or refuse (409). */
export type Transition<S> = { to: S } | 'unchanged' | 'refused';

/**
 * Decision 0014's table, one for every kind of run (a project's batch, a collection's run, a
 * crawl's). `append` is listed with the transitions because the same table decides it. Cancel goes
 * to `cancelling`; the run then ends `cancelled` when its last job in flight finishes (at once when
 * none is).
 */
export const RUN_TRANSITIONS: Record<RunState, Record<RunAction | 'append', Transition<RunState>>> = {
  open: { append: 'unchanged', run: { to: 'running' }, pause: 'refused', resume: 'refused', cancel: { to: 'cancelling' } },
  running: { append: 'unchanged', run: 'unchanged', pause: { to: 'paused' }, resume: 'unchanged', cancel: { to: 'cancelling' } },
  paused: { append: 'unchanged', run: 'refused', pause: 'unchanged', resume: { to: 'running' }, cancel: { to: 'cancelling' } },
  cancelling: { append: 'refused', run: 'refused', pause: 'refused', resume: 'refused', cancel: 'unchanged' },
  completed: { append: 'refused', run: 'refused', pause: 'refused', resume: 'refused', cancel: 'refused' },
  cancelled: { append: 'refused', run: 'refused', pause: 'refused', resume: 'refused', cancel: 'refused' },
};

/** How a refusal names what the run could not do. */
const REFUSED_VERB: Record<RunAction | 'append', string> = {
  append: 'take new jobs',
  run: 'run',
  pause: 'be paused',
  resume: 'be resumed',
  cancel: 'be cancelled',
};

/**
 * What `action` does to the run in its state (RUN_TRANSITIONS, one table for every kind); a refusal
 * is a 409 naming the run as its kind does (`The crawl is completed: it cannot be paused.`).
 */
export function allowedMove(run: Pick<LockedRun, 'kind' | 'state'>, action: RunAction | 'append'): Transition<RunState> {
  const move = RUN_TRANSITIONS[run.state][action];
  if (move === 'refused')
    throw new InvalidStateError(`The ${RUN_KIND_RULES[run.kind].noun} is ${run.state}: it cannot ${REFUSED_VERB[action]}.`, {
      state: run.state,
    });
  return move;
}
