import type { RateLimitDecision } from './request-rate-limiter';

/**
 * Callers refused for their rate limit, remembered until their window ends, so that each further
 * call in that window is refused from memory, before any database lookup, counter or bus message.
 * A client flooding past its limit then costs a hash and a map read per call, not the three round
 * trips of admission (client lookup, counter, quota), and cannot slow the others.
 *
 * It only ever refuses, and only until the window the limiter named has ended, so it can never
 * admit a call the limiter would refuse; a token rotated meanwhile reads 429 rather than 401 until
 * then. Per gateway replica: each replica pays one refused lookup per caller and window.
 */
export class RefusedCallers {
  private readonly refusals = new Map<string, RateLimitDecision>();

  constructor(
    private readonly capacity = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The refusal still in force for `caller`, with its Retry-After counted from now; null when none. */
  refusalOf(caller: string): RateLimitDecision | null {
    const refusal = this.refusals.get(caller);
    if (!refusal) return null;
    const msLeft = refusal.resetAt * 1000 - this.now();
    if (msLeft <= 0) {
      this.refusals.delete(caller);
      return null;
    }
    return { ...refusal, allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)) };
  }

  /** Remembers a refusal until its window ends; an allowed decision is not a refusal and is ignored. */
  remember(caller: string, decision: RateLimitDecision): void {
    if (decision.allowed) return;
    this.refusals.delete(caller);
    // Bounded: past capacity the oldest refusal goes (its caller is merely looked up again).
    if (this.refusals.size >= this.capacity) this.refusals.delete(this.refusals.keys().next().value as string);
    this.refusals.set(caller, decision);
  }
}
