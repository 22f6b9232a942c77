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

  it('with a spacing, starts passes for a key at least that far apart; a request marked now does not wait', async () => {
    const starts: number[] = [];
    const coalesced = new CoalescedPasses<string>(
      async () => void starts.push(performance.now()),
      () => undefined,
      100,
    );
    const origin = performance.now();
    await coalesced.request('a');
    // Twenty requests over the next ~60 ms: they share one pass, 100 ms after the first began.
    const during: Array<Promise<void>> = [];
    for (let i = 0; i < 20; i++) {
      during.push(coalesced.request('a'));
      await new Promise((r) => setTimeout(r, 3));
    }
    await Promise.all(during);
    expect(starts).toHaveLength(2);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(99);
    // Another key is not held back by it.
    await coalesced.request('b');
    expect(starts).toHaveLength(3);
    expect(starts[2]! - origin).toBeLessThan(starts[1]! - origin + 50);
    // Within the spacing again: `now` cuts the pause short.
    const before = performance.now();
    await coalesced.request('a', { now: true });
    expect(starts).toHaveLength(4);
    expect(starts[3]! - before).toBeLessThan(50);
  });

  it('never loses the last request: every request is followed by a pass that started after it', async () => {
    let passes = 0;
    const coalesced = new CoalescedPasses<string>(
      async () => {
        passes += 1;
        await new Promise((r) => setTimeout(r, Math.random() * 3));
      },
      () => undefined,
      5,
    );
    for (let round = 0; round < 30; round++) {
      const seen = passes;
      const request = coalesced.request('a');
      let passedSince = false;
      await request.then(() => (passedSince = passes > seen));
      expect(passedSince).toBe(true);
      if (round % 3 === 0) await new Promise((r) => setTimeout(r, Math.random() * 8));
    }
  });
});
