/**
 * Work asked for per key (a client) more often than it can run: a pass starts at once when none is
 * running for the key; requests that arrive during one share a single further pass after it, so
 * the last pass always follows the last request. A failed pass ends the run and goes to `onError`
 * (the caller's periodic sweep is the backstop).
 *
 * `spacingMs` (default 0): passes for one key start at least this far apart, so a key asked for
 * hundreds of times a second costs at most 1000 ÷ spacingMs passes a second — the requests in
 * between share the next one. A request marked `now` does not wait for the spacing. Given as a
 * function, it is asked after each pass with what the pass returned (a pass that knows the next one
 * would have little to do can ask for room; one that does not, for none).
 */
export class CoalescedPasses<K, R = unknown> {
  private readonly runs = new Map<K, KeyRun>();

  constructor(
    private readonly pass: (key: K) => Promise<R>,
    private readonly onError: (key: K, error: unknown) => void,
    private readonly spacingMs: number | ((outcome: R) => number) = 0,
  ) {}

  /** Resolves once a pass that started after this request has ended (never rejects). */
  request(key: K, options: { now?: boolean } = {}): Promise<void> {
    const running = this.runs.get(key);
    if (running) {
      if (options.now) running.hurry();
      return new Promise<void>((resolve) => running.waiters.push(resolve));
    }
    const run = new KeyRun();
    this.runs.set(key, run);
    const done = new Promise<void>((resolve) => run.waiters.push(resolve));
    void this.loop(key, run);
    return done;
  }

  private async loop(key: K, run: KeyRun): Promise<void> {
    try {
      while (run.waiters.length > 0) {
        const served = run.waiters.splice(0);
        const started = performance.now();
        let outcome: R;
        try {
          outcome = await this.pass(key);
        } finally {
          for (const resolve of served) resolve();
        }
        const spacing = typeof this.spacingMs === 'function' ? this.spacingMs(outcome) : this.spacingMs;
        const rest = spacing - (performance.now() - started);
        // The key stays taken for the rest of the spacing: requests in it join the next pass.
        if (rest > 0) await run.pause(rest);
      }
    } catch (error) {
      this.onError(key, error);
      for (const resolve of run.waiters.splice(0)) resolve();
    } finally {
      this.runs.delete(key);
    }
  }
}

/** One key's passes in progress: who waits for the next one, and the spacing pause. */
class KeyRun {
  readonly waiters: Array<() => void> = [];
  private wake: (() => void) | null = null;
  private hurried = false;

  pause(ms: number): Promise<void> {
    if (this.hurried) {
      this.hurried = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  /** Ends the current pause at once, or skips the next one. */
  hurry(): void {
    if (this.wake) this.wake();
    else this.hurried = true;
  }
}
