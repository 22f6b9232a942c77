import type { ProjectAction, ProjectStatus } from '@lib/contracts';
import type { Transition } from '../runs/run-transitions';

/** Decision 0014's project table; `write` stands for create batch and append jobs. */
export const PROJECT_TRANSITIONS: Record<ProjectStatus, Record<ProjectAction | 'write', Transition<ProjectStatus>>> = {
  active: { write: 'unchanged', pause: { to: 'paused' }, resume: 'unchanged', close: { to: 'closed' } },
  paused: { write: 'unchanged', pause: 'unchanged', resume: { to: 'active' }, close: { to: 'closed' } },
  closed: { write: 'refused', pause: 'refused', resume: 'refused', close: 'unchanged' },
};
