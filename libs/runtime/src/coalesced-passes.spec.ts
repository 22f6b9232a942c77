import { CoalescedPasses } from './coalesced-passes';

describe('CoalescedPasses', () => {
  it('runs at once, folds requests made during a pass into one more pass, and keeps keys apart', async () => {
    const passes: string[] = [];
    let release: () => void = () => undefined;
    const coalesced = new CoalescedPasses<string>(
      (key) => {
        passes.push(key);
        return new Promise<void>((resolve) => (release = resolve));
      },
      () => undefined,
    );
    const first = coalesced.request('a');
    const during = [coalesced.request('a'), coalesced.request('a'), coalesced.request('a')];
    expect(passes).toEqual(['a']);
    release();
    await new Promise((r) => setImmediate(r));
    // Three requests during the first pass: one more pass, not three.
    expect(passes).toEqual(['a', 'a']);
    release();
    await Promise.all([first, ...during]);
    expect(passes).toEqual(['a', 'a']);
    void coalesced.request('b');
    expect(passes).toEqual(['a', 'a', 'b']);
    release();
  });

  it('reports a failed pass, resolves its waiters, and starts afresh on the next request', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const coalesced = new CoalescedPasses<string>(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('database away');
      },
      (_key, error) => errors.push(error),
    );
    await coalesced.request('a');
    expect(errors).toHaveLength(1);
    await coalesced.request('a');
    expect([calls, errors.length]).toEqual([2, 1]);
  });
});
