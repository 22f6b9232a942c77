/**
 * Polling for end-to-end specs that does not depend on how fast the machine is.
 *
 * Every poll is an authenticated request that counts against the client's per-minute rate limit,
 * so a fixed short interval turns a slow machine into a 429 (seen in CI: a webhook spec's client
 * spent its 200/min on polling before its last test ran). The interval therefore grows from
 * `initialMs` by `factor` up to `maxMs`: a condition reached quickly is still seen quickly, and a
 * slow one costs few requests. Specs that must observe short-lived states pass `factor: 1` and give
 * their client a rate limit sized for that (see `pollingClient`).
 */
export interface PollOptions {
  timeoutMs?: number;
  initialMs?: number;
  maxMs?: number;
  factor?: number;
  /** Named in the error when the condition is not reached. */
  what?: string;
}

export async function eventually<T>(probe: () => Promise<T | false | null | undefined>, options: PollOptions = {}): Promise<T> {
  const { timeoutMs = 60_000, initialMs = 50, maxMs = 1000, factor = 1.5, what = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let delay = initialMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() + delay > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(maxMs, delay * factor);
  }
}

/**
 * Per-minute limit for a client whose spec polls every `intervalMs` for up to a minute, plus
 * headroom for the spec's own calls: the polling can never be what runs it out.
 */
export function rateLimitForPolling(intervalMs: number): number {
  return Math.ceil(60_000 / intervalMs) * 2 + 600;
}
