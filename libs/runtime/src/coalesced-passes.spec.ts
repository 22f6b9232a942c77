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
    // On a fake clock: the spacing is about the order of events, which real timers blur by a
    // millisecond either way (CI saw a 100 ms timer fire 98.9 ms after performance.now()).
    jest.useFakeTimers();
    try {
      const starts: Array<{ key: string; at: number }> = [];
      const coalesced = new CoalescedPasses<string>(
        async (key) => void starts.push({ key, at: performance.now() }),
        () => undefined,
        100,
      );
      const origin = performance.now();
      await coalesced.request('a');
      // Twenty requests over the next 60 ms: they share one pass, 100 ms after the first began.
      const during: Array<Promise<void>> = [];
      for (let i = 0; i < 20; i++) {
        during.push(coalesced.request('a'));
        await jest.advanceTimersByTimeAsync(3);
      }
      await jest.advanceTimersByTimeAsync(100);
      await Promise.all(during);
      expect(starts.map((s) => [s.key, s.at - origin])).toEqual([
        ['a', 0],
        ['a', 100],
      ]);
      // Another key is not held back by it.
      await coalesced.request('b');
      expect(starts[2]).toEqual({ key: 'b', at: performance.now() });
      // Within a's spacing again: `now` cuts the pause short, with no time passing.
      const before = performance.now();
      await coalesced.request('a', { now: true });
      expect(starts[3]).toEqual({ key: 'a', at: before });
      expect(starts).toHaveLength(4);
    } finally {
      jest.useRealTimers();
    }
  });

  it('asks a spacing given as a function after each pass, with what the pass returned', async () => {
    jest.useFakeTimers();
    try {
      // The pass says whether the next one would have work: room when it would not, none when it would.
      const starts: number[] = [];
      const backlog = [40, 40, 0, 0];
      const coalesced = new CoalescedPasses<string, number>(
        async () => {
          starts.push(performance.now());
          return backlog[starts.length - 1] ?? 0;
        },
        () => undefined,
        (queued) => (queued >= 8 ? 50 : 0),
      );
      const origin = performance.now();
      const requests: Array<Promise<void>> = [];
      const requestAt = async (at: number) => {
        await jest.advanceTimersByTimeAsync(at - (performance.now() - origin));
        requests.push(coalesced.request('a'));
      };
      await requestAt(0);
      for (const at of [1, 2, 3]) await requestAt(at);
      await requestAt(60);
      await jest.advanceTimersByTimeAsync(41);
      await requestAt(101);
      await jest.advanceTimersByTimeAsync(0);
      await Promise.all(requests);
      // After a backlog of 40 the next pass waits 50 ms (the three requests during the first share
      // one); after an empty queue it does not wait at all.
      expect(starts.map((at) => at - origin)).toEqual([0, 50, 100, 101]);
    } finally {
      jest.useRealTimers();
    }
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
