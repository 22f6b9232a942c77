import { RUN_ACTIONS, RUN_KINDS, RUN_STATES } from '@lib/contracts';
import { InvalidStateError } from '../batch-orchestrator.errors';
import { allowedMove, RUN_TRANSITIONS } from './run-transitions';

// One table decides every kind's lifecycle (decision 0036): what a kind changes is only how a
// refusal names the run, never whether the move is allowed.
describe('allowedMove', () => {
  const cases = RUN_KINDS.flatMap((kind) =>
    RUN_STATES.flatMap((state) => [...RUN_ACTIONS, 'append' as const].map((action) => ({ kind, state, action }))),
  );

  it.each(cases)('$kind in $state, $action: the table’s answer', ({ kind, state, action }) => {
    const expected = RUN_TRANSITIONS[state][action];
    if (expected === 'refused') {
      let refusal: unknown;
      try {
        allowedMove({ kind, state }, action);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(InvalidStateError);
      expect((refusal as InvalidStateError).details).toEqual({ state });
    } else expect(allowedMove({ kind, state }, action)).toEqual(expected);
  });

  it('names the run as its kind does', () => {
    expect(() => allowedMove({ kind: 'crawl', state: 'completed' }, 'pause')).toThrow('The crawl is completed: it cannot be paused.');
    expect(() => allowedMove({ kind: 'batch', state: 'cancelling' }, 'append')).toThrow(
      'The batch is cancelling: it cannot take new jobs.',
    );
    expect(() => allowedMove({ kind: 'collection', state: 'cancelled' }, 'cancel')).toThrow(
      'The run is cancelled: it cannot be cancelled.',
    );
  });
});
