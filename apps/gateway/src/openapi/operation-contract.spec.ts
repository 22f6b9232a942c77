import { RunView } from '@lib/contracts';
import { Returns } from './operation-contract';

// The compiler holds a handler to the class its @Returns documents (checked by npm run typecheck:
// an unneeded @ts-expect-error is itself an error, so this file fails if the constraint goes).
class Handlers {
  @Returns(200, RunView, { description: 'a run' })
  run(): Promise<RunView> {
    return Promise.reject(new Error('not called'));
  }

  @Returns(200, [RunView], { description: 'runs' })
  runs(): RunView[] {
    return [];
  }

  // @ts-expect-error a handler returning another shape cannot document RunView
  @Returns(200, RunView, { description: 'not a run' })
  notARun(): { run_id: number } {
    return { run_id: 1 };
  }
}

describe('@Returns', () => {
  it('records the documented status and class for the document builder', () => {
    const responses = Reflect.getMetadata('swagger/apiResponse', Handlers.prototype.run) as Record<
      string,
      { type: unknown; description: string }
    >;
    expect(responses['200']).toMatchObject({ type: RunView, description: 'a run' });
    const list = Reflect.getMetadata('swagger/apiResponse', Handlers.prototype.runs) as Record<
      string,
      { type: unknown; isArray?: boolean }
    >;
    expect(list['200']).toMatchObject({ type: RunView, isArray: true });
  });
});
