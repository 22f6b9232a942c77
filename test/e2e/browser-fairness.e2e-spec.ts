import { type BrowserFixtureSite, startBrowserFixtureSite } from '../support/browser-fixture-site';
import { type HttpResult, http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

/**
 * Fair browser capacity (issue 34), over HTTP in both runtimes: a client flooding the worker with
 * pages that never finish loading holds at most its share of the page slots (min(plan,
 * BROWSER_CONCURRENCY − 1)); the rest of its flood is answered 429 with Retry-After at once, and
 * another client's browser scrape starts at once and finishes while the flood's pages still hang.
 * When other clients' pages fill every slot, a request waits BROWSER_QUEUE_TIMEOUT_MS and gets 503
 * with Retry-After. Nothing refused is charged.
 */
describe.each(runtimesUnderTest('browser-fairness'))('fair browser capacity — $name', (runtime) => {
  let site: BrowserFixtureSite;
  let env: InProcessPlatform;
  let cleanup: () => Promise<void> = async () => undefined;
  const tokens: Record<'flood' | 'other' | 'filler' | 'late', string> = { flood: '', other: '', filler: '', late: '' };

  beforeAll(async () => {
    site = await startBrowserFixtureSite();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      BROWSER_CONCURRENCY: '4',
      // The flood's pages outlive everything the test checks; a waiter gives up well before they end.
      BROWSER_NAVIGATION_TIMEOUT_MS: '15000',
      BROWSER_QUEUE_TIMEOUT_MS: '1500',
    });
    const client = async (plan: string) =>
      (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan } })).body.token as string;
    // The flooding client's plan allows 10 pages at once: the worker's own cap (4 − 1) is what holds it.
    tokens.flood = await client('scale');
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

  it("holds a flood to its share: the rest 429 at once, another client's scrape starts at once, a full worker 503s", async () => {
    const floodQuotaBefore = await quotaUsed('flood');
    const lateQuotaBefore = await quotaUsed('late');
    const answered: Array<{ who: string; res: HttpResult }> = [];
    const track = (who: string, pending: Promise<HttpResult>) => pending.then((res) => (answered.push({ who, res }), res));

    // 20 scrapes of a page whose load event never comes.
    const floodSent = Date.now();
    const flood = Array.from({ length: 20 }, () => track('flood', scrape('flood', '/never-loads')));
    // The refusals come back at once, while the admitted pages hang.
    await waitFor(() => answered.filter((a) => a.who === 'flood').length >= 17, 30_000);
    const refusedAfterMs = Date.now() - floodSent;
    const refused = answered.filter((a) => a.who === 'flood').map((a) => a.res);
    for (const res of refused) {
      expect(res.status).toBe(429);
      expect(res.body.error_code).toBe('browser_concurrency_exceeded');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }

    // Another client's browser scrape is not queued behind the flood: a slot was kept free for it.
    const other = await track('other', scrape('other', '/spa'));
    expect(other.status).toBe(200);
    expect(other.body.guidance).toMatchObject({ success: true, credits_charged: 5 });
    expect(other.body.timings.queue_wait_ms).toBeLessThanOrEqual(2000);
    // It finished while every one of the flood's admitted pages was still loading.
    expect(answered.filter((a) => a.who === 'flood')).toHaveLength(17);

    // A fourth page fills the worker; a fifth client's request waits the queue timeout, then 503.
    const filler = track('filler', scrape('filler', '/never-loads'));
    // Its page has started once the browser asked the site for it (the flood's three did before).
    await waitFor(() => (site.hits.get('/never-loads') ?? 0) >= 4, 10_000);
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
      `fair browser capacity (${runtime.name}): 17 of 20 flood requests refused 429 within ${refusedAfterMs} ms; ` +
        `the other client's scrape waited ${other.body.timings.queue_wait_ms} ms for a slot (total ${other.body.timings.total_ms} ms); ` +
        `a full worker answered 503 after ${lateAnsweredMs} ms (queue timeout 1500 ms), Retry-After ${late.headers.get('retry-after')} s\n`,
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
