import { closedLocalPort, type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { runtimesUnderTest } from './support/runtimes';

/**
 * Billing and usage metrics end to end (spec 2.17, 4.2), in both runtimes: a known mix of simple,
 * browser, download, failed and batch calls, and the reports agree exactly with the
 * X-Credits-Charged headers (and the run's credits) of those calls.
 */
describe.each(runtimesUnderTest('billing'))('billing and metrics — $name', (runtime) => {
  let site: FixtureSite;
  let env: InProcessPlatform;
  let token: string;
  let clientId: string;
  let closedPort: number;
  let charged = 0;
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
    });
    clientId = `billing-${runtime.mode}`;
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'growth', client_id: clientId } })).body.token;

    // The mix: every response's X-Credits-Charged is added up.
    const call = async (path: string, json: unknown) => {
      const res = await http(env.url, path, { token, json });
      charged += Number(res.headers.get('x-credits-charged'));
      return res;
    };
    for (let i = 0; i < 3; i += 1)
      expect((await call('/v1/sync/scrape', { url: `${site.url}/page?b=${i}` })).body.guidance.success).toBe(true);
    expect((await call('/v1/sync/scrape', { url: `${site.url}/status/404` })).body.statusCode).toBe(404);
    expect((await call('/v1/sync/scrape', { url: `${site.url}/captcha` })).body.potentiallyBlockedByCaptcha).toBe(true);
    expect(
      (await call('/v1/sync/scrape', { url: `${site.url}/page?browser`, browser: true, browser_type: 'light' })).headers.get(
        'x-credits-charged',
      ),
    ).toBe('5');
    expect((await call('/v1/sync/download', { url: `${site.url}/file.pdf` })).body.contentType).toBe('application/pdf');
    expect(
      (await call('/v1/sync/scrape', { url: `http://127.0.0.1:${closedPort}/`, use_proxy: { proxy: null, max_retries: 0 } })).headers.get(
        'x-credits-charged',
      ),
    ).toBe('0');
    const collection = (
      await http(env.url, '/v1/async/collections', {
        token,
        json: { name: 'billed', requests: [{ url: `${site.url}/page?batch` }, { url: `${site.url}/status/404?batch` }] },
      })
    ).body.id;
    const run = (await http(env.url, `/v1/async/collections/${collection}/run`, { token, method: 'POST' })).body;
    const status = await eventually(
      async () => {
        const body = (await http(env.url, `/v1/async/collections/${collection}/runs/${run.run_id}`, { token })).body;
        return body.status === 'completed' && body;
      },
      { what: 'the billed run completed' },
    );
    charged += status.credits_charged;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const api = (path: string, as = token) => http(env.url, path, { token: as });
  const month = () => new Date().toISOString().slice(0, 7);
  const today = () => new Date().toISOString().slice(0, 10);

  it('bills the month exactly as the calls were charged', async () => {
    const res = await api('/v1/sync/billing');
    expect(res.status).toBe(200);
    expect(res.body.month).toBe(month());
    expect(res.body.credit_system).toEqual({ simple_request: 1, browser_request: 5 });
    expect(Object.keys(res.body.clients)).toEqual([clientId]);
    const mine = res.body.clients[clientId];
    expect(charged).toBe(13);
    expect(mine.credits).toEqual({ simple: 8, browser: 5, total: charged });
    expect(mine).toMatchObject({
      simple_success: 5, // 3 pages, the download, the batch's page
      simple_failed: 3, // 404 and captcha (charged: the site answered), the batch's 404
      simple_total: 8,
      browser_success: 1,
      browser_failed: 0,
      browser_total: 1,
      total_requests: 9,
      total_success: 6,
      total_failed: 3,
    });
    expect(mine.by_url).toBeUndefined();
    const detailed = (await api('/v1/sync/billing?detail=urls')).body.clients[clientId];
    expect(detailed.by_url).toEqual({
      '127.0.0.1': { simple_success: 5, simple_failed: 3, browser_success: 1, browser_failed: 0, total: 9 },
    });
  });

  it('shows an ordinary client only itself, and an administrator any client or all', async () => {
    expect((await api('/v1/sync/billing?client=admin')).status).toBe(403);
    expect((await api(`/v1/sync/billing?client=${clientId}`)).status).toBe(200);
    const one = (await api(`/v1/sync/billing?client=${clientId}`, env.adminToken)).body;
    expect(Object.keys(one.clients)).toEqual([clientId]);
    const all = (await api('/v1/sync/billing', env.adminToken)).body;
    expect(all.clients[clientId].credits.total).toBe(13);
    const past = (await api('/v1/sync/billing?month=2020-01')).body;
    expect(past).toMatchObject({
      month: '2020-01',
      clients: { [clientId]: { total_requests: 0, credits: { simple: 0, browser: 0, total: 0 } } },
    });
  });

  it.each([
    ['/v1/sync/billing?month=2026-13', 'month'],
    ['/v1/sync/billing?month=November', 'month'],
    ['/v1/sync/billing?detail=domains', 'detail'],
    ['/v1/sync/client-metrics?date=2026-02-30', 'date'],
    ['/v1/sync/client-metrics?date=yesterday', 'date'],
    ['/v1/sync/client-metrics?date=2026-11-20:2026-11-01', 'ends before'],
    ['/v1/sync/client-metrics?hourly=maybe', 'hourly'],
    ['/v1/sync/client-metrics?daily=often', 'daily'],
  ])('answers %s with a clear 400', async (path, word) => {
    const res = await api(path);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(word);
  });

  it("reports a client's day, range and month, per scrape type, per domain and per hour", async () => {
    const day = (await api(`/v1/sync/client-metrics?date=${today()}`)).body;
    expect(day).toMatchObject({
      client_id: clientId,
      date: { from: today(), to: today() },
      totals: { requests: 9, success: 6, failed: 3, credits: 13 },
    });
    expect(day.scrape_type.simple).toMatchObject({ requests: 8, success: 5, failed: 3, credits: 8 });
    expect(day.scrape_type.browser).toMatchObject({ requests: 1, success: 1, failed: 0, credits: 5 });
    expect(day.scrape_type.browser.avg_execution_ms).toBeGreaterThan(0);
    expect(day.url).toBeUndefined();
    expect(day.hourly).toBeUndefined();

    const detailed = (await api(`/v1/sync/client-metrics?date=${month()}&detail=urls&hourly=true`)).body;
    expect(detailed.date.from).toBe(`${month()}-01`);
    expect(detailed.url['127.0.0.1']).toMatchObject({ requests: 9, credits: 13 });
    const days = Object.keys(detailed.hourly);
    expect(days[0]).toBe(`${month()}-01`);
    expect(detailed.hourly[today()]).toHaveLength(24);
    const hourSum = Object.values(detailed.hourly)
      .flat()
      .reduce((sum: number, cell: any) => sum + cell.requests, 0);
    expect(hourSum).toBe(9);
    expect(detailed.daily).toBeUndefined();

    // By day and mode: every day of the month, each with both modes; the days add up to the month.
    const daily = (await api(`/v1/sync/client-metrics?date=${month()}&daily=true`)).body;
    expect(Object.keys(daily.daily)).toEqual(days);
    expect(daily.daily[today()].simple).toMatchObject({ requests: 8, success: 5, failed: 3, credits: 8 });
    expect(daily.daily[today()].browser).toMatchObject({ requests: 1, success: 1, failed: 0, credits: 5 });
    const dailyCredits = Object.values(daily.daily).reduce((sum: number, d: any) => sum + d.simple.credits + d.browser.credits, 0);
    expect(dailyCredits).toBe(daily.totals.credits);
    expect(daily.hourly).toBeUndefined();

    const range = (await api(`/v1/sync/client-metrics?date=2020-01-01:2020-01-02`)).body;
    expect(range.totals.requests).toBe(0);
    expect((await api(`/v1/sync/client-metrics?client=someone-else`)).status).toBe(403);
    expect((await api(`/v1/sync/client-metrics?client=${clientId}`, env.adminToken)).body.totals.requests).toBe(9);
  });

  it('gives administrators platform metrics, and nobody else', async () => {
    expect((await api('/v1/sync/metrics')).status).toBe(403);
    const all = (await api(`/v1/sync/metrics?date=${today()}`, env.adminToken)).body;
    expect(Object.keys(all).sort()).toEqual(['api_codes', 'date', 'exe_time', 'page_codes', 'proxy', 'scrape_type', 'url']);
    expect(all.page_codes['404']).toMatchObject({ requests: 2, success: 0, failed: 2 });
    expect(all.scrape_type).toMatchObject({ browser: { requests: 1 }, download: { requests: 1 } });
    expect(all.url['127.0.0.1'].requests).toBeGreaterThanOrEqual(9);
    expect(all.proxy.direct.requests).toBeGreaterThanOrEqual(9);
    const exe = (await api(`/v1/sync/metrics?date=${today()}&metric=exe_time`, env.adminToken)).body;
    expect(Object.keys(exe).sort()).toEqual(['date', 'exe_time']);
    expect(exe.exe_time.count).toBeGreaterThanOrEqual(9);
    expect(exe.exe_time.p50_ms).toBeLessThanOrEqual(exe.exe_time.p99_ms);
    expect((await api('/v1/sync/metrics?metric=latency', env.adminToken)).status).toBe(400);
    expect((await api('/v1/sync/metrics?date=2026-11', env.adminToken)).status).toBe(400);
  });
});
