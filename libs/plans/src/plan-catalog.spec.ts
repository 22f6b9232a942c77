import { PLAN_CATALOG, resolveClientLimits } from './plan-catalog';

describe('PLAN_CATALOG', () => {
  // Spec 2.18 and the demo token of spec 5.3 / operator contract §3.
  it.each([
    ['free', 0, 1000, 200, 10],
    ['starter', 29, 10000, 2000, 60],
    ['growth', 69, 50000, 10000, 120],
    ['pro', 199, 200000, 40000, 200],
    ['scale', 499, 1000000, 200000, 500],
    ['enterprise', null, null, null, null],
    ['demo', 0, 5000, 1000, 30],
  ] as const)('%s has the published values', (id, price, credits, browser, rate) => {
    expect(PLAN_CATALOG[id]).toMatchObject({
      priceUsdPerMonth: price,
      monthlyCredits: credits,
      browserRequestsPerMonth: browser,
      rateLimitPerMinute: rate,
    });
  });

  it('lets no plan render fewer browser pages at once than a cheaper one, and every plan at least one', () => {
    const paid = ['free', 'starter', 'growth', 'pro', 'scale', 'enterprise'] as const;
    for (let i = 1; i < paid.length; i += 1)
      expect(PLAN_CATALOG[paid[i]].browserConcurrency).toBeGreaterThanOrEqual(PLAN_CATALOG[paid[i - 1]].browserConcurrency);
    for (const plan of Object.values(PLAN_CATALOG)) expect(plan.browserConcurrency).toBeGreaterThanOrEqual(1);
  });

  it('gives country proxies to every plan but demo', () => {
    for (const plan of Object.values(PLAN_CATALOG)) expect(plan.features.includes('country_proxies')).toBe(plan.id !== 'demo');
  });

  it('lets per-client overrides win and defaults enterprise to 1000/min, unlimited', () => {
    expect(resolveClientLimits('enterprise')).toEqual({
      rateLimitPerMinute: 1000,
      monthlyCredits: null,
      batchConcurrency: 100,
      browserConcurrency: 20,
      monitors: { monitors: 2000, urlsPerMonitor: 10_000, minIntervalSeconds: 60 },
    });
    expect(resolveClientLimits('free', { rateLimitPerMinute: 3, monthlyCredits: 7 })).toEqual({
      rateLimitPerMinute: 3,
      monthlyCredits: 7,
      batchConcurrency: 2,
      browserConcurrency: 1,
      monitors: { monitors: 1, urlsPerMonitor: 10, minIntervalSeconds: 86_400 },
    });
    expect(resolveClientLimits('starter', { rateLimitPerMinute: null, monthlyCredits: null })).toEqual({
      rateLimitPerMinute: 60,
      monthlyCredits: 10000,
      batchConcurrency: 5,
      browserConcurrency: 2,
      monitors: { monitors: 5, urlsPerMonitor: 100, minIntervalSeconds: 3600 },
    });
  });
});
