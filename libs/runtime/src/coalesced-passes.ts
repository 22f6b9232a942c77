/**
 * Work asked for per key (a client) more often than it can run: a pass starts at once when none is
 * running for the key; requests that arrive during one share a single further pass after it, so
 * the last pass always follows the last request. A failed pass ends the run and goes to `onError`
 * (the caller's periodic sweep is the backstop).
 */
export class CoalescedPasses<K> {
  private readonly runs = new Map<K, { again: boolean; done: Promise<void> }>();

  constructor(
    private readonly pass: (key: K) => Promise<unknown>,
    private readonly onError: (key: K, error: unknown) => void,
  ) {}

  /** Resolves once a pass that started after this request has ended (never rejects). */
  request(key: K): Promise<void> {
    const running = this.runs.get(key);
    if (running) {
      running.again = true;
      return running.done;
    }
    const run = { again: false, done: Promise.resolve() };
    this.runs.set(key, run);
    run.done = (async () => {
      try {
        do {
          run.again = false;
          await this.pass(key);
        } while (run.again);
      } catch (error) {
        this.onError(key, error);
      } finally {
        this.runs.delete(key);
      }
    })();
    return run.done;
  }
}
