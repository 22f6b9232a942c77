import fc from 'fast-check';
import { pollDelayMs } from '../../apps/console/src/api/poll-pacing';

/**
 * Watching a run or a viability test must not spend the token's rate limit: whatever the limit,
 * the console's polling uses at most a quarter of it, and never polls faster than asked.
 */
describe('pollDelayMs', () => {
  it('keeps polling within a quarter of any rate limit, and never under the base delay', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 100, max: 60_000 }), (perMinute, baseMs) => {
        const delay = pollDelayMs(baseMs, { rateLimit: perMinute });
        expect(delay).toBeGreaterThanOrEqual(baseMs);
        expect(60_000 / delay).toBeLessThanOrEqual(perMinute / 4);
      }),
    );
  });

  it('polls every 8 s on the demo plan (30 a minute) and at the base delay on a generous one', () => {
    expect(pollDelayMs(1000, { rateLimit: 30 })).toBe(8000);
    expect(pollDelayMs(1000, { rateLimit: 600 })).toBe(1000);
    expect(pollDelayMs(1000, null)).toBe(1000);
  });
});
