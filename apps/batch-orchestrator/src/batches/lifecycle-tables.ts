import type { BatchAction, BatchState, ProjectAction, ProjectStatus } from '@lib/contracts';

/** What an operation does in a state: move to another, answer without change, or refuse (409). */
export type Transition<S> = { to: S } | 'unchanged' | 'refused';

/**
 * Decision 0014's batch table. `append` is listed with the transitions because the same table
 * decides it. Cancel goes to `cancelling`; the run then ends `cancelled` when its last job in
 * flight finishes (at once when none is).
 */
export const BATCH_TRANSITIONS: Record<BatchState, Record<BatchAction | 'append', Transition<BatchState>>> = {
  open: { append: 'unchanged', run: { to: 'running' }, pause: 'refused', resume: 'refused', cancel: { to: 'cancelling' } },
  running: { append: 'unchanged', run: 'unchanged', pause: { to: 'paused' }, resume: 'unchanged', cancel: { to: 'cancelling' } },
  paused: { append: 'unchanged', run: 'refused', pause: 'unchanged', resume: { to: 'running' }, cancel: { to: 'cancelling' } },
  cancelling: { append: 'refused', run: 'refused', pause: 'refused', resume: 'refused', cancel: 'unchanged' },
  completed: { append: 'refused', run: 'refused', pause: 'refused', resume: 'refused', cancel: 'refused' },
  cancelled: { append: 'refused', run: 'refused', pause: 'refused', resume: 'refused', cancel: 'refused' },
};

/** Decision 0014's project table; `write` stands for create batch and append jobs. */
export const PROJECT_TRANSITIONS: Record<ProjectStatus, Record<ProjectAction | 'write', Transition<ProjectStatus>>> = {
  active: { write: 'unchanged', pause: { to: 'paused' }, resume: 'unchanged', close: { to: 'closed' } },
  paused: { write: 'unchanged', pause: 'unchanged', resume: { to: 'active' }, close: { to: 'closed' } },
  closed: { write: 'refused', pause: 'refused', resume: 'refused', close: 'unchanged' },
};
