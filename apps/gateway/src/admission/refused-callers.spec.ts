import fc from 'fast-check';
import { RefusedCallers } from './refused-callers';
import type { RateLimitDecision } from './request-rate-limiter';

const refusal = (resetAt: number): RateLimitDecision => ({ allowed: false, limit: 10, remaining: 0, resetAt, retryAfterSeconds: 60 });

describe(RefusedCallers.name, () => {
  it('refuses only until the window the limiter named ends, counting Retry-After from now', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 120_000 }), fc.integer({ min: 0, max: 200_000 }), (windowMs, elapsedMs) => {
        let now = 1_700_000_000_000;
        const callers = new RefusedCallers(100, () => now);
        const resetAt = Math.ceil((now + windowMs) / 1000);
        callers.remember('token:a', refusal(resetAt));
        now += elapsedMs;
        const found = callers.refusalOf('token:a');
        const msLeft = resetAt * 1000 - now;
        if (msLeft <= 0) expect(found).toBeNull();
        else
          expect(found).toMatchObject({ allowed: false, remaining: 0, resetAt, retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)) });
      }),
    );
  });

  it('never remembers an allowed call, and knows only the callers it was told', () => {
    const callers = new RefusedCallers();
    callers.remember('token:a', { ...refusal(Math.ceil(Date.now() / 1000) + 60), allowed: true });
    expect(callers.refusalOf('token:a')).toBeNull();
    callers.remember('token:b', refusal(Math.ceil(Date.now() / 1000) + 60));
    expect(callers.refusalOf('token:b')).not.toBeNull();
    expect(callers.refusalOf('ip:1.2.3.4')).toBeNull();
  });

  it('holds at most its capacity, dropping the oldest refusal', () => {
    const callers = new RefusedCallers(3);
    const later = Math.ceil(Date.now() / 1000) + 60;
    for (const caller of ['a', 'b', 'c', 'd']) callers.remember(caller, refusal(later));
    expect(['a', 'b', 'c', 'd'].map((caller) => callers.refusalOf(caller) !== null)).toEqual([false, true, true, true]);
  });
});
