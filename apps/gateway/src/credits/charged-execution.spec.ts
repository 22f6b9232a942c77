import type { ScrapeExecutionFacts } from '@lib/contracts';
import type { AdmittedCall } from '../admission/caller.decorator';
import { ChargedExecution } from './charged-execution';
import type { CreditGate, CreditHold } from './credit-gate';
import { scrapeFacts } from '../../../../test/support/scrape-fixtures';

/** The hold of a failed call goes back at once, or within seconds when billing-meter is briefly away. */
describe('ChargedExecution releases', () => {
  const quota = {
    client_id: 'c',
    month: '2026-11',
    limit: 100,
    used: 0,
    remaining: 100,
    resets_at: 0,
    as_of: 0,
  } as unknown as CreditHold['quota'];
  const admission = {
    requestId: 'r1',
    client: { id: 'c', limits: { monthlyCredits: 100 } },
    rateLimit: null,
    quota: null,
    creditsCharged: 0,
  } as unknown as AdmittedCall;

  function gate(failReleases: number) {
    const calls = { hold: 0, release: [] as number[] };
    const started = Date.now();
    const credits = {
      hold: async (): Promise<CreditHold> => {
        calls.hold += 1;
        return { reservationId: 'h1', credits: 1, quota };
      },
      release: async () => {
        calls.release.push(Date.now() - started);
        if (calls.release.length <= failReleases) throw new Error('billing-meter unreachable');
        return quota;
      },
    } as unknown as CreditGate;
    return { calls, credits };
  }

  it('releases at once when the work throws, and the error reaches the caller', async () => {
    const { calls, credits } = gate(0);
    await expect(
      new ChargedExecution(credits).run(admission, 'k', 1, async () => Promise.reject(new Error('engine lost'))),
    ).rejects.toThrow('engine lost');
    expect(calls.release).toHaveLength(1);
  });

  it('retries a release that failed, in the background, until it goes through', async () => {
    const { calls, credits } = gate(2);
    await expect(
      new ChargedExecution(credits).run(admission, 'k', 1, async () => Promise.reject(new Error('engine lost'))),
    ).rejects.toThrow('engine lost');
    expect(calls.release).toHaveLength(1);
    const deadline = Date.now() + 20_000;
    while (calls.release.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    // Now, then after 1 s, then after 2 more: the third went through and nothing more was tried.
    expect(calls.release).toHaveLength(3);
    expect(calls.release[1]).toBeGreaterThanOrEqual(900);
    expect(calls.release[2] - calls.release[1]).toBeGreaterThanOrEqual(1900);
  });
});

describe('ChargedExecution charge keys', () => {
  it('are made of the kind and the hold, never of the client-chosen request id: one X-Request-Id on every call charges every call', async () => {
    const keys: string[] = [];
    let holds = 0;
    const quota = { month: '2026-11', limit: 100, used: 0, remaining: 100, resets_at: 0, as_of: 0 };
    const credits = {
      hold: async (): Promise<CreditHold> => ({ reservationId: `hold-${++holds}`, credits: 1, quota }),
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
