import { type BrowserFixtureSite, startBrowserFixtureSite } from '../support/browser-fixture-site';
import { type HttpResult, http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

/**
 * Fair browser capacity (issues 34 and 65), over HTTP in both runtimes. A client's browser scrapes
 * within its plan's browser_concurrency are all served: min(plan, BROWSER_CONCURRENCY − 1) render
 * at once and the rest wait their turn. A client flooding the worker with pages that never finish
 * loading renders at most that share; its pages past the plan are answered 429 with Retry-After at
 * once, those within it 429 once they have waited BROWSER_QUEUE_TIMEOUT_MS on the client's own
 * pages; another client's browser scrape starts at once and finishes while the flood's pages still
 * hang. When other clients' pages fill every slot, a request waits BROWSER_QUEUE_TIMEOUT_MS and gets
 * 503 with Retry-After. Nothing refused is charged.
 */
// Long enough for a burst's last pages to get their turn on a loaded CI machine.
const QUEUE_WAIT_MS = 5000;

describe.each(runtimesUnderTest('browser-fairness'))('fair browser capacity — $name', (runtime) => {
  let site: BrowserFixtureSite;
  let env: InProcessPlatform;
  let cleanup: () => Promise<void> = async () => undefined;
  const tokens: Record<'burst' | 'flood' | 'other' | 'filler' | 'late', string> = { burst: '', flood: '', other: '', filler: '', late: '' };

  beforeAll(async () => {
    site = await startBrowserFixtureSite();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      BROWSER_CONCURRENCY: '4',
      // The flood's pages outlive everything the test checks; a waiter gives up well before they end.
      BROWSER_NAVIGATION_TIMEOUT_MS: '25000',
      BROWSER_QUEUE_TIMEOUT_MS: String(QUEUE_WAIT_MS),
    });
    const client = async (plan: string) =>
      (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan } })).body.token as string;
    // The flooding client's plan allows 10 pages in flight; 3 (4 − 1) render at once on this worker.
    tokens.flood = await client('scale');
    tokens.burst = await client('scale');
    tokens.other = await client('free');
    tokens.filler = await client('free');
    tokens.late = await client('free');
  }, 60_000);
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const scrape = (who: keyof typeof tokens, path: string) =>
    http(env.url, '/v1/sync/scrape', { token: tokens[who], json: { url: `${site.url}${path}`, browser: true, browser_type: 'light' } });
  const quotaUsed = async (who: keyof typeof tokens) =>
    Number((await http(env.url, '/v1/account', { token: tokens[who] })).headers.get('x-quota-used'));

  it('serves every page of a burst within the plan: three render at once, the rest wait their turn, none is refused', async () => {
    const plans = (await http(env.url, '/v1/plans')).body;
    expect(plans.browser_capacity).toEqual({ pages_per_worker: 4, most_rendering_per_client: 3, queue_wait_seconds: QUEUE_WAIT_MS / 1000 });
    const scale = plans.plans.find((p: { id: string }) => p.id === 'scale');
    expect(scale).toMatchObject({ browser_concurrency: 10, browser_rendering_per_worker: 3 });
    expect((await http(env.url, '/v1/account', { token: tokens.burst })).body).toMatchObject({
      browser_concurrency: 10,
      browser_rendering_per_worker: 3,
    });

    // Eight pages at once (the case: five of them were refused 429), each holding its slot ~0.6 s.
    const sent = Date.now();
    const burst = await Promise.all(Array.from({ length: 8 }, () => scrape('burst', '/never-loads?ms=600')));
    const tookMs = Date.now() - sent;
    for (const res of burst) {
      expect(res.status).toBe(200);
      expect(res.body.guidance).toMatchObject({ success: true, credits_charged: 5 });
    }
    const waits = burst.map((res) => res.body.timings.queue_wait_ms as number).sort((a, b) => a - b);
    // Three started at once; the others waited for the client's own pages to end (≥ one page's time).
    expect(waits[7]).toBeGreaterThanOrEqual(500);
    process.stdout.write(
      `browser burst (${runtime.name}): 8 pages on a plan of 10 (3 rendering per worker) all 200 in ${tookMs} ms; queue_wait_ms ${waits.join(', ')}\n`,
    );
  }, 60_000);

  it("holds a flood to its plan: past it 429 at once, within it 429 after the wait, another client's scrape starts at once, a full worker 503s", async () => {
    const floodQuotaBefore = await quotaUsed('flood');
    const lateQuotaBefore = await quotaUsed('late');
    const answered: Array<{ who: string; res: HttpResult }> = [];
    const track = (who: string, pending: Promise<HttpResult>) => pending.then((res) => (answered.push({ who, res }), res));

    // 20 scrapes of a page whose load event never comes: 3 render, 7 wait their turn (plan 10), 10 are past the plan.
    const floodSent = Date.now();
    const flood = Array.from({ length: 20 }, () => track('flood', scrape('flood', '/never-loads')));
    // The refusals past the plan come back at once, while the admitted pages hang and the rest wait.
    await waitFor(() => answered.filter((a) => a.who === 'flood').length >= 10, 30_000);
    const refusedAfterMs = Date.now() - floodSent;
    const refused = answered.filter((a) => a.who === 'flood').map((a) => a.res);
    expect(refused).toHaveLength(10);
    for (const res of refused) {
      expect(res.status).toBe(429);
      expect(res.body.error_code).toBe('browser_concurrency_exceeded');
      expect(res.body.detail).toMatch(/the most its plan allows/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }

    // Another client's browser scrape is not queued behind the flood: a slot was kept free for it.
    const other = await track('other', scrape('other', '/spa'));
    expect(other.status).toBe(200);
    expect(other.body.guidance).toMatchObject({ success: true, credits_charged: 5 });
    expect(other.body.timings.queue_wait_ms).toBeLessThanOrEqual(2000);
    // It finished while every one of the flood's admitted pages was still loading.
    expect(answered.filter((a) => a.who === 'flood').length).toBeLessThanOrEqual(17);

    // The seven that waited their turn behind the client's own hanging pages are told 429 after the wait.
    await waitFor(() => answered.filter((a) => a.who === 'flood').length >= 17, 30_000);
    const waitedOut = answered
      .filter((a) => a.who === 'flood')
      .slice(10)
      .map((a) => a.res);
    for (const res of waitedOut) {
      expect(res.status).toBe(429);
      expect(res.body.error_code).toBe('browser_concurrency_exceeded');
      expect(res.body.detail).toMatch(/did not finish within \d+ ms of waiting/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const waitedOutAfterMs = Date.now() - floodSent;
    expect(waitedOutAfterMs).toBeGreaterThanOrEqual(QUEUE_WAIT_MS);

    // A fourth page fills the worker; a fifth client's request waits the queue timeout, then 503.
    const startedBefore = site.hits.get('/never-loads') ?? 0;
    const filler = track('filler', scrape('filler', '/never-loads'));
    // Its page has started once the browser asked the site for it.
    await waitFor(() => (site.hits.get('/never-loads') ?? 0) > startedBefore, 10_000);
    const lateSent = Date.now();
    const late = await scrape('late', '/spa');
    const lateAnsweredMs = Date.now() - lateSent;
    expect(late.status).toBe(503);
    expect(late.body.error_code).toBe('browser_capacity_exhausted');
    expect(Number(late.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(answered.filter((a) => a.who === 'flood')).toHaveLength(17);

    // The admitted pages end as timeouts (not charged); nothing refused was charged either.
    const admitted = (await Promise.all(flood)).filter((res) => res.status !== 429);
    expect(admitted).toHaveLength(3);
    for (const res of admitted) expect(res.body.guidance).toMatchObject({ error_type: 'timeout', credits_charged: 0 });
    expect((await filler).body.guidance).toMatchObject({ error_type: 'timeout', credits_charged: 0 });
    expect(await quotaUsed('flood')).toBe(floodQuotaBefore);
    expect(await quotaUsed('late')).toBe(lateQuotaBefore);
    process.stdout.write(
      `fair browser capacity (${runtime.name}): 10 of 20 flood requests (past the plan) refused 429 within ${refusedAfterMs} ms, ` +
        `7 (within it) 429 after waiting, by ${waitedOutAfterMs} ms; ` +
        `the other client's scrape waited ${other.body.timings.queue_wait_ms} ms for a slot (total ${other.body.timings.total_ms} ms); ` +
        `a full worker answered 503 after ${lateAnsweredMs} ms (queue timeout ${QUEUE_WAIT_MS} ms), Retry-After ${late.headers.get('retry-after')} s\n`,
    );
  }, 120_000);
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 25): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
