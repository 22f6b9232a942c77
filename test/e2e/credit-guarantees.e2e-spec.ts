import { closedLocalPort, type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

/**
 * The credit guarantees under concurrency, over HTTP, in both runtimes (decision 0013: the gateway
 * holds from a credit lease in memory, charges are group-committed): many concurrent requests
 * against a small quota never overdraw it; every X-Credits-Charged is in the ledger and nothing
 * else is; an uncharged failure is never recorded and its credits come back.
 */
describe.each(runtimesUnderTest('credits'))('credit guarantees under concurrency — $name', (runtime) => {
  let site: FixtureSite;
  let env: InProcessPlatform;
  let closedPort: number;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    site = await startFixtureSite();
    closedPort = await closedLocalPort();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${closedPort}`,
      BROWSER_WARM: 'false',
      // Unused lease credits go back quickly, so the test sees the quota settle.
      CREDIT_LEASE_IDLE_MS: '200',
    });
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const newClient = async (monthlyCredits: number) =>
    (
      await http(env.url, '/v1/admin/clients', {
        token: env.adminToken,
        json: { plan: 'growth', monthly_credits: monthlyCredits, rate_limit_per_minute: 100_000 },
      })
    ).body as { client_id: string; token: string };
  const billedCredits = async (clientId: string) =>
    (await http(env.url, `/v1/sync/billing?client=${clientId}`, { token: env.adminToken })).body.clients[clientId]?.credits.total ?? 0;
  const quotaUsed = async (token: string) => Number((await http(env.url, '/v1/plans', { token })).headers.get('x-quota-used'));

  it('60 concurrent simple scrapes against 12 credits, for 4 clients at once: exactly 12 each succeed and are charged, the rest are 429, the ledger agrees', async () => {
    // Four clients side by side keep lease grants, charges and their replies interleaving: a
    // gateway that took a grant's lease figure as its own once let 14 of 12 through.
    const clients = await Promise.all([0, 1, 2, 3].map(() => newClient(12)));
    const perClient = await Promise.all(
      clients.map((client) =>
        Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            http(env.url, '/v1/sync/scrape', { token: client.token, json: { url: `${site.url}/page?c=${client.client_id}-${i}` } }),
          ),
        ),
      ),
    );
    for (const [index, results] of perClient.entries()) {
      const client = clients[index];
      const statuses = results.map((r) => r.status);
      expect([client.client_id, statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length]).toEqual([
        client.client_id,
        12,
        48,
      ]);
      for (const r of results.filter((x) => x.status === 429)) expect(r.body.error_code).toBe('quota_exceeded');
      const charged = results.reduce((sum, r) => sum + Number(r.headers.get('x-credits-charged')), 0);
      expect(charged).toBe(12);
      expect(await billedCredits(client.client_id)).toBe(12);
      await eventually(async () => (await quotaUsed(client.token)) === 12, { what: 'X-Quota-Used 12' });
    }
  });

  it('mixed outcomes at once: every X-Credits-Charged is in the ledger, failures are never charged, and unused credits come back', async () => {
    const client = await newClient(1000);
    const requests = Array.from({ length: 48 }, (_, i) => {
      if (i % 3 === 0) return { url: `http://127.0.0.1:${closedPort}/?m=${i}` };
      if (i % 3 === 1) return { url: `${site.url}/status/404?m=${i}` };
      return { url: `${site.url}/page?m=${i}` };
    });
    const results = await Promise.all(requests.map((json) => http(env.url, '/v1/sync/scrape', { token: client.token, json })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const charges = results.map((r) => Number(r.headers.get('x-credits-charged')));
    // Connection failures are free; a 404 is the site's answer and is charged (spec 4.2).
    expect(charges.filter((c, i) => i % 3 === 0 && c !== 0)).toEqual([]);
    expect(charges.reduce((a, b) => a + b, 0)).toBe(32);
    expect(await billedCredits(client.client_id)).toBe(32);
    // The lease's unused credits go back once the client is idle: used is exactly what was charged.
    await eventually(async () => (await quotaUsed(client.token)) === 32, { what: 'X-Quota-Used back to the 32 charged' });
  });

  it('answers the quota headers of a response with its own charge counted', async () => {
    const client = await newClient(100);
    const first = await http(env.url, '/v1/sync/scrape', { token: client.token, json: { url: `${site.url}/page?h=1` } });
    const second = await http(env.url, '/v1/sync/scrape', { token: client.token, json: { url: `${site.url}/page?h=2` } });
    expect([first.headers.get('x-credits-charged'), first.headers.get('x-quota-used'), first.headers.get('x-quota-remaining')]).toEqual([
      '1',
      '1',
      '99',
    ]);
    expect([second.headers.get('x-quota-used'), second.headers.get('x-quota-remaining')]).toEqual(['2', '98']);
  });
});
