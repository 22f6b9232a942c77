import { QUOTA_CACHE_TTL_MS, QuotaCache } from './quota-cache';

describe(QuotaCache.name, () => {
  let now = Date.parse('2026-11-22T10:00:00Z');
  const resets = Date.parse('2026-12-01T00:00:00Z') / 1000;
  const cache = () => new QuotaCache(() => now);
  const state = (used: number, asOf: number) => ({ month: '2026-11', used, resets_at: resets, as_of: asOf });

  beforeEach(() => (now = Date.parse('2026-11-22T10:00:00Z')));

  it('misses until told, then applies the client limit at read time', () => {
    const c = cache();
    expect(c.read('a', 100)).toBeNull();
    c.remember('a', state(30, 1));
    expect(c.read('a', 100)).toEqual({ month: '2026-11', limit: 100, used: 30, remaining: 70, resets_at: resets, as_of: 1 });
    expect(c.read('a', null)).toMatchObject({ limit: null, remaining: null });
    expect(c.read('a', 10)).toMatchObject({ remaining: 0 });
  });

  it('keeps the newest computation when events arrive out of order', () => {
    const c = cache();
    c.apply({ client_id: 'a', ...state(15, 200) });
    c.apply({ client_id: 'a', ...state(10, 100) });
    expect(c.read('a', 100)?.used).toBe(15);
  });

  it('forgets an entry after its TTL and at the month rollover', () => {
    const c = cache();
    c.remember('a', state(5, 1));
    now += QUOTA_CACHE_TTL_MS + 1;
    expect(c.read('a', 100)).toBeNull();
    c.remember('a', state(5, 2));
    now = resets * 1000;
    expect(c.read('a', 100)).toBeNull();
  });
});
