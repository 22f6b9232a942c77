import fc from 'fast-check';
import type { CallbackResult } from './callback-transport';
import { deliveryVerdict } from './delivery-verdict';

const DELAYS = [10, 60, 300] as const;
const NOW = new Date('2026-11-24T12:00:00Z');
const answered = (statusCode: number): CallbackResult => ({ kind: 'answered', statusCode, latencyMs: 5 });
const first = { number: 1, manual: false };

describe('deliveryVerdict (operator contract §4)', () => {
  it('a 2xx is sent, with nothing scheduled', () => {
    for (const code of [200, 201, 204, 299])
      expect(deliveryVerdict(answered(code), first, DELAYS, NOW)).toEqual({ outcome: 'sent', status: 'sent', nextAttemptAt: null });
  });

  it('timeouts, connection errors, 408, 429 and 5xx are retried after the n-th delay for the n-th attempt', () => {
    const error: CallbackResult = { kind: 'error', error: 'timeout after 5000 ms', latencyMs: 5000 };
    for (const result of [error, answered(408), answered(429), answered(500), answered(503)]) {
      for (const [index, delay] of DELAYS.entries()) {
        expect(deliveryVerdict(result, { number: index + 1, manual: false }, DELAYS, NOW)).toEqual({
          outcome: 'failed',
          status: 'failed',
          nextAttemptAt: new Date(NOW.getTime() + delay * 1000),
        });
      }
      // One more failure than there are delays: final.
      expect(deliveryVerdict(result, { number: DELAYS.length + 1, manual: false }, DELAYS, NOW).outcome).toBe('failed_final');
    }
  });

  it('any other 4xx, and a 3xx (redirects are not followed), fail for good at once', () => {
    for (const code of [301, 302, 400, 401, 403, 404, 410, 422])
      expect(deliveryVerdict(answered(code), first, DELAYS, NOW)).toEqual({
        outcome: 'failed_final',
        status: 'failed',
        nextAttemptAt: null,
      });
  });

  it('a callback_url that is no longer public is blocked: failed for good, whatever the attempt', () => {
    const blocked: CallbackResult = { kind: 'blocked', error: 'callback_url refused (private address)', latencyMs: 1 };
    expect(deliveryVerdict(blocked, first, DELAYS, NOW)).toEqual({ outcome: 'blocked', status: 'failed', nextAttemptAt: null });
  });

  it('a redelivery asked for by the client is one attempt: a retryable failure is final', () => {
    expect(deliveryVerdict(answered(503), { number: 1, manual: true }, DELAYS, NOW).outcome).toBe('failed_final');
    expect(deliveryVerdict(answered(200), { number: 7, manual: true }, DELAYS, NOW).outcome).toBe('sent');
  });

  it('for any answer and attempt: sent iff 2xx; something is scheduled iff failed and retryable within the delays', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), fc.integer({ min: 1, max: 6 }), fc.boolean(), (code, number, manual) => {
        const verdict = deliveryVerdict(answered(code), { number, manual }, DELAYS, NOW);
        const ok = code >= 200 && code < 300;
        const retryable = code >= 500 || code === 408 || code === 429;
        expect(verdict.status === 'sent').toBe(ok);
        expect(verdict.nextAttemptAt !== null).toBe(!ok && retryable && !manual && number <= DELAYS.length);
        if (verdict.nextAttemptAt) expect(verdict.nextAttemptAt.getTime()).toBeGreaterThan(NOW.getTime());
      }),
    );
  });
});
