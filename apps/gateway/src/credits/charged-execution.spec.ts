import { PhaseTimings } from '../admission/phase-timings';
import type { ScrapeExecutionFacts } from '@lib/contracts';
import type { AdmittedCall } from '../admission/caller.decorator';
import { ChargedExecution } from './charged-execution';
import type { CreditGate, CreditHold } from './credit-gate';
import { scrapeFacts } from '../../../../test/support/scrape-fixtures';

/** A failed call's credits go back to the lease at once, and the error reaches the caller unchanged. */
describe('ChargedExecution releases', () => {
  const quota = { month: '2026-11', limit: 100, used: 0, remaining: 100, resets_at: 0, as_of: 0 };
  const admission = () =>
    ({
      requestId: 'r1',
      client: { id: 'c', limits: { monthlyCredits: 100 } },
      rateLimit: null,
      quota: null,
      creditsCharged: 0,
      timings: new PhaseTimings(),
    }) as unknown as AdmittedCall;

  function gate(quotaLookupFails: boolean) {
    const calls = { hold: 0, release: 0, charge: 0 };
    const credits = {
      hold: async (): Promise<CreditHold> => {
        calls.hold += 1;
        return { reservationId: 'h1', credits: 1 } as CreditHold;
      },
      release: () => void (calls.release += 1),
      charge: async () => {
        calls.charge += 1;
        return quota;
      },
      quotaOf: async () => {
        if (quotaLookupFails) throw new Error('billing-meter unreachable');
        return quota;
      },
    } as unknown as CreditGate;
    return { calls, credits };
  }

  it('releases when the work throws, charges nothing, and the error reaches the caller', async () => {
    const { calls, credits } = gate(false);
    const call = admission();
    await expect(new ChargedExecution(credits).run(call, 'k', 1, async () => Promise.reject(new Error('engine lost')))).rejects.toThrow(
      'engine lost',
    );
    expect(calls).toEqual({ hold: 1, release: 1, charge: 0 });
    expect(call.quota).toEqual(quota);
    expect(call.creditsCharged).toBe(0);
  });

  it('keeps the engine error when the quota lookup after the release fails too', async () => {
    const { calls, credits } = gate(true);
    await expect(
      new ChargedExecution(credits).run(admission(), 'k', 1, async () => Promise.reject(new Error('engine lost'))),
    ).rejects.toThrow('engine lost');
    expect(calls.release).toBe(1);
  });

  it('releases a call the facts say is not billable', async () => {
    const { calls, credits } = gate(false);
    const call = admission();
    await new ChargedExecution(credits).run(call, 'k', 1, async () => ({
      facts: { ...scrapeFacts({ rules_version: 'x' }), billable: false },
      result: null,
      outcome: { success: false },
    }));
    expect(calls).toEqual({ hold: 1, release: 1, charge: 0 });
    expect(call.creditsCharged).toBe(0);
  });
});

describe('ChargedExecution charge keys', () => {
  it('are made of the kind and the hold, never of the client-chosen request id: one X-Request-Id on every call charges every call', async () => {
    const keys: string[] = [];
    let holds = 0;
    const quota = { month: '2026-11', limit: 100, used: 0, remaining: 100, resets_at: 0, as_of: 0 };
    const credits = {
      hold: async (): Promise<CreditHold> => ({ reservationId: `hold-${++holds}`, credits: 1 }) as CreditHold,
      charge: async (_client: unknown, _hold: CreditHold, _credits: number, key: string) => {
        keys.push(key);
        return quota;
      },
    } as unknown as CreditGate;
    const facts: ScrapeExecutionFacts = scrapeFacts({ rules_version: 'x' });
    for (let i = 0; i < 2; i += 1) {
      const admission = {
        requestId: 'same-id-every-time',
        client: { id: 'c', limits: { monthlyCredits: 100 } },
        rateLimit: null,
        quota: null,
        creditsCharged: 0,
        timings: new PhaseTimings(),
      } as unknown as AdmittedCall;
      await new ChargedExecution(credits).run(admission, 'sync-scrape', 1, async () => ({
        facts: { ...facts },
        result: null,
        outcome: { success: true, executionMs: 5 },
      }));
      expect(admission.creditsCharged).toBe(1);
    }
    expect(keys).toEqual(['sync-scrape:hold-1', 'sync-scrape:hold-2']);
  });
});
