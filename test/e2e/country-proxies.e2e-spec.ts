import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { startLocalProxies } from './support/local-proxies';
import { runtimesUnderTest } from './support/runtimes';

/**
 * Country proxies end to end (spec 4.7, 3.5; operator contract §3), in both runtimes: the ISO
 * list, requests, the administrator's review, and approval taking effect for the next scrape,
 * routed through the country's pool (local proxies that count what they carry).
 */
describe.each(runtimesUnderTest('country-proxies'))('country proxies — $name', (runtime) => {
  let site: FixtureSite;
  let env: InProcessPlatform;
  let proxies: Awaited<ReturnType<typeof startLocalProxies>>;
  const carried = [0, 0];
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    site = await startFixtureSite();
    proxies = await startLocalProxies(2, (i) => {
      carried[i] += 1;
      return {};
    });
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      // Loopback proxies and the fixture are allowed explicitly; everything else stays refused.
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      PROXY_POOL: JSON.stringify({ any: [`http://127.0.0.1:${proxies.ports[0]}`], DE: [`http://127.0.0.1:${proxies.ports[1]}`] }),
      BROWSER_WARM: 'false',
    });
    token = (
      await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'starter', client_id: `geo-${runtime.mode}` } })
    ).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await proxies?.close();
    await site?.close();
  });

  const api = (path: string, init: Parameters<typeof http>[2] = {}) => http(env.url, path, { token, ...init });
  const admin = (path: string, init: Parameters<typeof http>[2] = {}) => http(env.url, path, { token: env.adminToken, ...init });
  const clientId = () => `geo-${runtime.mode}`;

  it('lists more than 200 ISO 3166-1 alpha-2 codes', async () => {
    const res = await api('/v1/proxy/countries');
    expect(res.status).toBe(200);
    expect(res.body.countries.length).toBeGreaterThan(200);
    expect(res.body.countries).toEqual(expect.arrayContaining(['DE', 'FR', 'US', 'JP', 'BR']));
    expect(res.body.countries.every((c: string) => /^[A-Z]{2}$/.test(c))).toBe(true);
    expect(res.body.details.find((c: any) => c.code === 'DE')).toEqual({ code: 'DE', name: 'Germany' });
  });

  it('refuses unknown codes and clients without the feature', async () => {
    const unknown = await api('/v1/proxy/request-country', { json: { country_code: 'XX', reason: 'test' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error_code).toBe('unknown_country');
    expect((await api('/v1/proxy/request-country', { json: { country_code: 'Germany' } })).status).toBe(422);
    const demo = await http(env.url, '/v1/proxy/request-country', { token: env.demoToken, json: { country_code: 'DE' } });
    expect(demo.status).toBe(403);
    expect(demo.body).toMatchObject({ error_code: 'feature_not_available', detail: expect.stringContaining('country_proxies') });
  });

  it("applies an approval to the very next scrape, through the country's pool", async () => {
    const page = `${site.url}/page`;
    const before = await api('/v1/sync/scrape', { json: { url: page, use_proxy: 'DE' } });
    expect(before.status).toBe(403);
    expect(before.body.error_code).toBe('country_not_approved');
    expect(carried).toEqual([0, 0]);

    const asked = await api('/v1/proxy/request-country', { json: { country_code: 'de', reason: 'German prices' } });
    expect(asked.body).toMatchObject({ client_id: clientId(), country_code: 'DE', status: 'pending' });
    expect((await api('/v1/proxy/status')).body).toEqual({
      client_id: clientId(),
      approved_countries: [],
      pending_countries: ['DE'],
      denied_countries: [],
      error: null,
    });
    const pending = await admin('/v1/admin/proxy/requests?status=pending');
    expect(pending.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ client_id: clientId(), country_code: 'DE', status: 'pending', reason: 'German prices' }),
      ]),
    );
    expect((await api('/v1/admin/proxy/requests')).status).toBe(403);
    expect((await api(`/v1/admin/proxy/requests/${clientId()}/DE`, { json: { decision: 'approve' } })).status).toBe(403);

    const approved = await admin(`/v1/admin/proxy/requests/${clientId()}/DE`, { json: { decision: 'approve', note: 'ok for pricing' } });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', note: 'ok for pricing', decided_by: 'admin' });
    expect((await api('/v1/proxy/status')).body).toMatchObject({ approved_countries: ['DE'], pending_countries: [] });
    expect((await api('/v1/proxy/request-country', { json: { country_code: 'DE' } })).body.status).toBe('already_approved');

    const after = await api('/v1/sync/scrape', { json: { url: page, use_proxy: 'DE' } });
    expect(after.status).toBe(200);
    expect(after.body.statusCode).toBe(200);
    expect(carried).toEqual([0, 1]); // the DE pool, not "any"
  });

  it('shows a denial with its note and keeps refusing the country', async () => {
    await api('/v1/proxy/request-country', { json: { country_code: 'FR' } });
    const denied = await admin(`/v1/admin/proxy/requests/${clientId()}/FR`, { json: { decision: 'deny', note: 'no business need' } });
    expect(denied.body.status).toBe('denied');
    const status = (await api('/v1/proxy/status')).body;
    expect(status.denied_countries).toEqual([{ country_code: 'FR', note: 'no business need', decided_at: expect.any(String) }]);
    expect((await api('/v1/sync/scrape', { json: { url: `${site.url}/page`, use_proxy: 'FR' } })).status).toBe(403);
    expect((await admin('/v1/admin/proxy/requests?status=denied')).body.items.map((r: any) => r.country_code)).toContain('FR');
    expect((await admin(`/v1/admin/proxy/requests/${clientId()}/IT`, { json: { decision: 'approve' } })).status).toBe(404);
  });

  it('answers an approved country without a configured pool with a clear error, never a direct connection', async () => {
    await api('/v1/proxy/request-country', { json: { country_code: 'JP' } });
    await admin(`/v1/admin/proxy/requests/${clientId()}/JP`, { json: { decision: 'approve' } });
    const hits = site.hits;
    const res = await api('/v1/sync/scrape', { json: { url: `${site.url}/page`, use_proxy: 'JP' } });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error_code: 'proxy_pool_unavailable', detail: expect.stringContaining('JP') });
    expect(site.hits).toBe(hits);
  });

  it('holds batch jobs to the same approvals', async () => {
    const collection = (
      await api('/v1/async/collections', {
        json: {
          name: 'geo',
          requests: [
            { url: `${site.url}/page?fr`, use_proxy: 'FR' },
            { url: `${site.url}/page?de`, use_proxy: 'DE' },
          ],
        },
      })
    ).body.id;
    const run = (await api(`/v1/async/collections/${collection}/run`, { method: 'POST' })).body;
    const status = await eventually(
      async () => {
        const body = (await api(`/v1/async/collections/${collection}/runs/${run.run_id}`)).body;
        return body.status === 'completed' && body;
      },
      { what: 'the geo run completed' },
    );
    expect(status).toMatchObject({ status: 'completed', success_requests: 1, failed_requests: 1, credits_charged: 1 });
    expect(status.failed_jobs).toEqual([
      expect.objectContaining({ url: `${site.url}/page?fr`, status: 'failed', error: expect.stringContaining('country_not_approved') }),
    ]);
  });
});
