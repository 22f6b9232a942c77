import { normalUrl } from '@lib/url-normal-form';
import { type GeneratedSite, startGeneratedSite } from '../../bench/src/generated-site';
import { eventually } from './support/eventually';
import { crawlJobs } from './support/crawl-jobs';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { createHmac } from 'node:crypto';

const keyOf = (url: string) => normalUrl(url)!.key;
const ARTICLES = 200;

/**
 * POST /v1/crawl over real HTTP in both runtimes against the generated site (issue 39): every
 * in-scope page scraped once by its normal form, nothing robots.txt disallows fetched, max_pages
 * and max_credits never exceeded, redirects and canonical copies reported as duplicates, a crawl
 * that scrapes nothing saying why, cancel ending it, and its pages read through the jobs listing.
 */
describe.each(runtimesUnderTest('crawl'))('POST /v1/crawl — $name', (runtime) => {
  let site: GeneratedSite;
  let receiver: WebhookReceiver;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;
  const crawl = (json: Record<string, unknown>) => http(env.url, '/v1/crawl', { token, json });
  const status = (id: string) => http(env.url, `/v1/crawl/${id}`, { token });
  const finished = async (id: string, timeoutMs = 120_000) => {
    // A crawl that does not end says where it stood: slow (counters moving) or stuck (queued pages waiting).
    let last: unknown = null;
    return eventually(
      async () => {
        const res = await status(id);
        last = res.body;
        return res.body.status === 'completed' ? res.body : false;
      },
      { timeoutMs, what: `crawl ${id} completed` },
    ).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}; its last state ${JSON.stringify(last)}`);
    });
  };
  const jobUrls = (id: string) => crawlJobs(env.url, token, id);

  beforeAll(async () => {
    site = await startGeneratedSite({ articles: ARTICLES });
    receiver = await startWebhookReceiver();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiver.port}`,
      DISCOVERY_HOST_CONCURRENCY: '8',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_RETRY_DELAYS: '1,1,1',
    });
    const created = (
      await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'enterprise', rate_limit_per_minute: 100_000 } })
    ).body;
    token = created.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
    await receiver?.close();
  });

  it('scrapes every page reachable by links once, never a disallowed one, and lists them through the jobs listing', async () => {
    site.hits.clear();
    const started = await crawl({ url: `${site.url}/`, sitemap: 'skip', max_depth: 3, max_pages: 2_000 });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      state: 'running',
      status: 'in_progress',
      results_path: `/v1/jobs?batch_id=${started.body.crawl_id}`,
    });
    const done = await finished(started.body.crawl_id);
    expect(done).toMatchObject({ state: 'completed', queued: 0, zero_pages_reason: null, robots: 'found' });
    // The site's llms.txt is listed on the crawl (sitemap=skip reads it alone); its links are listed, not seeds:
    // the page only llms.txt names is never fetched, and the one outside the site is out of scope.
    expect(done.llms_txt).toMatchObject({ url: `${site.url}/llms.txt`, status: 'found', title: 'Generated site', entries_total: 3 });
    const llmsEntries = done.llms_txt.sections.flatMap((s: { entries: Array<{ url: string; in_scope: boolean }> }) => s.entries);
    expect(llmsEntries.map((e: { url: string; in_scope: boolean }) => [e.url, e.in_scope])).toEqual([
      [`${site.url}/sitemaps/sections.xml`, true],
      [`${site.url}/llms-only/page`, true],
      ['https://elsewhere.invalid/docs.md', false],
    ]);
    expect(site.hits.get('/llms-only/page') ?? 0).toBe(0);
    const jobs = await jobUrls(started.body.crawl_id);
    const keys = jobs.map((j) => keyOf(j.url));
    expect(new Set(keys).size).toBe(keys.length);
    const crawled = new Set(jobs.filter((j) => j.status === 'completed').map((j) => keyOf(j.url)));
    const missing = site.truth.articles.filter((u) => !crawled.has(keyOf(u)));
    expect({ missing, lists: site.truth.listPages.filter((u) => !crawled.has(keyOf(u))) }).toEqual({ missing: [], lists: [] });
    for (const path of site.truth.disallowedPaths) expect(site.hits.get(path) ?? 0).toBe(0);
    // Each URL fetched once: a redirect is not followed by the fetch but admitted like a link, so an
    // article that /old/p{i} → /moved/p{i} leads to is fetched once, as the crawl's own page.
    const twice = [...site.hits.entries()].filter(([path, n]) => n > 1 && path !== '/robots.txt');
    expect(twice).toEqual([]);
    expect(site.hits.get('/old/p0')).toBe(1);
    expect(done.discovered).toBe(jobs.length);
    // Print copies (rel=canonical names the article) and the /old/ and /moved/ addresses are twins:
    // jobs ended `cancelled`, never charged, counted in skipped.duplicate, not among the pages.
    const twins = jobs.filter((j) => j.status === 'cancelled');
    expect(twins.length).toBeGreaterThan(ARTICLES / 10);
    expect(done.skipped.duplicate).toBe(twins.length);
    expect(twins.every((j) => j.credits === 0 && /\/print$|\/old\/|\/moved\//.test(j.url))).toBe(true);
    const pages = jobs.filter((j) => j.status !== 'cancelled');
    expect(pages.filter((j) => /\/print$|\/old\/|\/moved\//.test(j.url))).toEqual([]);
    expect(done.completed + done.failed).toBe(pages.length);
    expect(done.credits_charged).toBe(pages.reduce((n, j) => n + j.credits, 0));
    expect(done.credits_charged).toBe(pages.length);
    expect(done.skipped.robots).toBeGreaterThan(0);
  });

  it('follows a redirect through the frontier (its target fetched once, as the page), and keeps a page whose canonical it may not scrape', async () => {
    site.hits.clear();
    const redirected = await crawl({ url: `${site.url}/old/p20`, sitemap: 'skip', max_depth: 0 });
    const moved = await finished(redirected.body.crawl_id);
    const movedJobs = await jobUrls(redirected.body.crawl_id);
    expect(movedJobs.filter((j) => j.status === 'completed').map((j) => keyOf(j.url))).toEqual([keyOf(`${site.url}/s0/p20`)]);
    expect(movedJobs.filter((j) => j.status === 'cancelled').map((j) => new URL(j.url).pathname)).toEqual(['/old/p20', '/moved/p20']);
    expect(moved).toMatchObject({ completed: 1, failed: 0, credits_charged: 1, discovered: 3, zero_pages_reason: null });
    expect(moved.skipped.duplicate).toBe(2);
    expect(['/old/p20', '/moved/p20', '/s0/p20'].map((p) => site.hits.get(p))).toEqual([1, 1, 1]);
    const twin = movedJobs.find((j) => j.status === 'cancelled')!;
    const twinData = await http(env.url, `/v1/jobs/${twin.job_id}/data`, { token });
    expect(twinData.status).toBe(200);
    expect(twinData.body).toMatchObject({ status: 'cancelled', markdown: null, duplicate_of: { reason: 'redirect' } });

    // /s1/p1/print names /s1/p1 as canonical, which include_paths leaves out: the copy is the page.
    site.hits.clear();
    const alone = await crawl({ url: `${site.url}/s1/p1/print`, sitemap: 'skip', max_depth: 0, include_paths: ['/s1/*/print'] });
    const kept = await finished(alone.body.crawl_id);
    const keptJobs = await jobUrls(alone.body.crawl_id);
    expect(keptJobs.filter((j) => j.status === 'completed').map((j) => new URL(j.url).pathname)).toEqual(['/s1/p1/print']);
    expect(kept).toMatchObject({ completed: 1, credits_charged: 1 });
    expect(kept.skipped.duplicate).toBe(0);
    expect(site.hits.get('/s1/p1') ?? 0).toBe(0);
  });

  it('never goes past max_pages or max_credits, and takes the sitemaps’ URLs and start_urls as first pages', async () => {
    const capped = await crawl({ url: `${site.url}/`, max_pages: 25 });
    const done = await finished(capped.body.crawl_id);
    expect(done.discovered).toBe(25);
    expect((await jobUrls(capped.body.crawl_id)).length).toBe(25);
    expect(done.skipped.over_limit).toBeGreaterThan(0);

    const started = await crawl({
      url: `${site.url}/s1/p1`,
      start_urls: [`${site.url}/s2/p2`, `${site.url}/s2/p2/`, `${site.url}/private/notes`, 'https://elsewhere.example/'],
      sitemap: 'skip',
      max_depth: 0,
    });
    const fromSeveral = await finished(started.body.crawl_id);
    expect((await jobUrls(started.body.crawl_id)).map((j) => j.url).sort()).toEqual([`${site.url}/s1/p1`, `${site.url}/s2/p2`]);
    expect(fromSeveral.skipped).toMatchObject({ robots: 1, scope: 1 });

    const budget = await crawl({ url: `${site.url}/`, max_credits: 7, sitemap: 'only' });
    const spent = await finished(budget.body.crawl_id);
    expect(spent.max_pages).toBe(7);
    expect(spent.credits_charged).toBeLessThanOrEqual(7);
    expect((await jobUrls(budget.body.crawl_id)).length).toBe(7);
  });

  it('says why a crawl scraped nothing: robots, blocked, scope', async () => {
    const disallowed = await crawl({ url: `${site.url}/private/notes` });
    expect(disallowed.status).toBe(202);
    expect((await finished(disallowed.body.crawl_id)).zero_pages_reason).toBe('robots');
    const blocked = await crawl({ url: `${site.url}/members/1`, max_depth: 0, sitemap: 'skip' });
    expect((await finished(blocked.body.crawl_id)).zero_pages_reason).toBe('blocked');
    const outOfScope = await crawl({ url: `${site.url}/`, sitemap: 'only', include_paths: ['/nowhere/**'] });
    const ended = await finished(outOfScope.body.crawl_id);
    expect(ended).toMatchObject({ state: 'completed', discovered: 0, zero_pages_reason: 'scope' });
    expect(ended.skipped.scope).toBeGreaterThan(0);
  });

  it('plans without scraping (dry_run): sections, sampled verdicts, a forecast, the analyses charged once', async () => {
    site.hits.clear();
    const planned = await crawl({ url: `${site.url}/`, dry_run: true, max_pages: 150 });
    expect(planned.status).toBe(202);
    expect(planned.body).toMatchObject({ state: 'planning', plan: null, llms_txt: null });
    const done = await finished(planned.body.crawl_id);
    expect(done.state).toBe('planned');
    expect(done.llms_txt).toMatchObject({ status: 'found', entries_total: 3 });
    const plan = done.plan;
    expect(plan.discovered).toBeGreaterThanOrEqual(ARTICLES);
    expect(plan.sections[0].urls).toBeGreaterThan(0);
    expect(plan.sections.slice(0, 5).every((s: { sampled: string[] }) => s.sampled.length > 0)).toBe(true);
    expect(plan.block_rate).toBe(0);
    expect(plan.recommended_mode).toBe('simple');
    const simple = plan.forecast.find((f: { mode: string }) => f.mode === 'simple');
    expect(simple).toMatchObject({ pages: 150, credits: 150 });
    // Local pages answer in a millisecond or two: the forecast is measured, not made up (null only where nothing was measured).
    expect(typeof simple.seconds).toBe('number');
    expect(plan.forecast.find((f: { mode: string }) => f.mode === 'browser')).toMatchObject({ pages: 150, credits: 750, seconds: null });
    const sampledCount = plan.sections.reduce((n: number, s: { sampled: string[] }) => n + s.sampled.length, 0);
    expect(plan.credits_charged).toBe(sampledCount * 2);
    // Nothing was scraped as a page: a plan has no run, so no job listing.
    expect(done.results_path).toBeNull();
    expect((await http(env.url, `/v1/jobs?batch_id=${planned.body.crawl_id}`, { token })).status).toBe(404);
    const refused = await http(env.url, `/v1/crawl/${planned.body.crawl_id}/cancel`, { token, method: 'POST' });
    expect(refused.status).toBe(409);
    expect(refused.body.error_code).toBe('invalid_state');
  });

  it('pauses, resumes and cancels by the batch table, and refuses bad input with the contract body', async () => {
    const started = await crawl({ url: `${site.url}/`, sitemap: 'skip', max_pages: 2_000 });
    const id = started.body.crawl_id;
    expect((await http(env.url, `/v1/crawl/${id}/pause`, { token, method: 'PUT' })).body.state).toBe('paused');
    expect((await http(env.url, `/v1/crawl/${id}/resume`, { token, method: 'PUT' })).body.state).toBe('running');
    const cancelled = await http(env.url, `/v1/crawl/${id}/cancel`, { token, method: 'POST' });
    expect(['cancelling', 'cancelled']).toContain(cancelled.body.state);
    expect((await finished(id)).state).toBe('cancelled');
    const again = await http(env.url, `/v1/crawl/${id}/resume`, { token, method: 'PUT' });
    expect(again.status).toBe(409);
    expect(again.body.error_code).toBe('invalid_state');

    expect((await http(env.url, '/v1/crawl/00000000-0000-4000-8000-000000000000', { token })).status).toBe(404);
    const badScrape = await crawl({ url: `${site.url}/`, scrape: { format: 'pdf' } });
    expect(badScrape.status).toBe(422);
    expect(badScrape.body.detail[0].loc).toEqual(['body', 'scrape', 'format']);
    const tooPoor = await crawl({ url: `${site.url}/`, max_credits: 3, scrape: { browser: true } });
    expect(tooPoor.status).toBe(422);
    expect(tooPoor.body.error_code).toBe('invalid_crawl');
  });

  it('announces each page that ran with a signed crawl.page webhook, once, beside crawl.completed; lists and redelivers them', async () => {
    receiver.script('pages', [503, 200]);
    const started = await crawl({
      url: `${site.url}/`,
      sitemap: 'skip',
      max_depth: 2,
      max_pages: 40,
      callback_url: `${receiver.url}/script/pages`,
      page_webhooks: true,
    });
    expect(started.status).toBe(202);
    const id = started.body.crawl_id;
    await finished(id);
    // max_pages bounds the pages fetched, twins (a print copy, an old address) among them; they ran but are not announced.
    const all = await jobUrls(id);
    expect(all.length).toBe(40);
    const ran = all.filter((j) => j.status !== 'cancelled');
    expect(ran.length).toBeGreaterThan(30);
    const mine = () =>
      receiver.received
        .filter((hit) => hit.path === '/script/pages')
        .map((hit) => ({ hit, body: JSON.parse(hit.raw) }))
        .filter(({ body }) => body.crawl_id === id);
    const pages = () => mine().filter(({ body }) => body.event === 'crawl.page');
    await eventually(
      async () =>
        new Set(pages().map(({ body }) => body.job_id)).size === ran.length && mine().some(({ body }) => body.event === 'crawl.completed'),
      { timeoutMs: 60_000, what: 'a crawl.page per page and crawl.completed' },
    );
    const secret = (await http(env.url, '/v1/webhooks/secret', { token })).body.secret;
    for (const { hit, body } of mine()) {
      const timestamp = String(hit.headers['x-service-timestamp']);
      expect(hit.headers['x-service-signature']).toBe(
        `sha256=${createHmac('sha256', secret).update(`${timestamp}.${hit.raw}`).digest('hex')}`,
      );
      expect(hit.headers['x-service-event']).toBe(body.event);
    }
    const byJob = new Map(ran.map((j) => [j.job_id, j]));
    for (const { body } of pages()) {
      const job = byJob.get(body.job_id)!;
      expect(body).toMatchObject({ crawl_id: id, run_id: id, url: job.url, status: job.status, credits: job.credits });
      expect(body.results_url).toMatch(new RegExp(`/v1/jobs/${body.job_id}/data$`));
    }
    // The first answer was a 503: that page's webhook was retried under its delivery id; every page has exactly one id.
    const idsPerJob = new Map<string, Set<string>>();
    for (const { hit, body } of pages())
      idsPerJob.set(body.job_id, (idsPerJob.get(body.job_id) ?? new Set()).add(String(hit.headers['x-service-delivery-id'])));
    expect([...idsPerJob.values()].every((ids) => ids.size === 1)).toBe(true);
    // The delivery that got the 503 (a page's or the completion's, whichever went first) came again as attempt 2.
    await eventually(async () => mine().some(({ hit }) => hit.headers['x-service-delivery-attempt'] === '2'), {
      timeoutMs: 30_000,
      what: 'the retry after a 503',
    });

    // The listing, paged: every page's delivery and the completion, all sent.
    const listed: Array<Record<string, any>> = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: any } = await http(
        env.url,
        `/v1/crawl/${id}/webhook-deliveries?limit=15${cursor ? `&cursor=${cursor}` : ''}`,
        { token },
      );
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(15);
      listed.push(...res.body.items);
      cursor = res.body.has_more ? res.body.cursor_next : null;
    } while (cursor);
    await eventually(
      async () =>
        (await http(env.url, `/v1/crawl/${id}/webhook-deliveries?limit=1000`, { token })).body.items.every(
          (d: { status: string }) => d.status === 'sent',
        ),
      { timeoutMs: 30_000, what: 'every delivery sent' },
    );
    expect(listed).toHaveLength(ran.length + 1);
    expect(new Set(listed.map((d) => d.delivery_id)).size).toBe(listed.length);
    expect(
      listed
        .filter((d) => d.event === 'crawl.page')
        .map((d) => d.job_id)
        .sort(),
    ).toEqual(ran.map((j) => j.job_id).sort());
    expect(listed.filter((d) => d.event === 'crawl.completed')).toMatchObject([{ job_id: null, url: null }]);

    // One delivery's log, and a redelivery under the same id.
    const one = listed.find((d) => d.event === 'crawl.page')!;
    const log = await http(env.url, `/v1/crawl/${id}/webhook-deliveries/${one.delivery_id}`, { token });
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({ delivery_id: one.delivery_id, run_id: id, status: 'sent' });
    const before = receiver.received.length;
    const again = await http(env.url, `/v1/crawl/${id}/webhook-deliveries/${one.delivery_id}/redeliver`, { token, method: 'POST' });
    expect(again.status).toBe(202);
    await eventually(async () => receiver.received.slice(before).some((hit) => hit.headers['x-service-delivery-id'] === one.delivery_id), {
      timeoutMs: 30_000,
      what: 'the redelivery',
    });
    const redelivered = receiver.received.slice(before).find((hit) => hit.headers['x-service-delivery-id'] === one.delivery_id)!;
    expect(redelivered.headers['x-service-delivery-attempt']).toBe(String(log.body.attempts.length + 1));

    // Refusals: page webhooks need a callback_url; a cursor not written for this crawl; unknown crawl and delivery.
    const noCallback = await crawl({ url: `${site.url}/`, page_webhooks: true });
    expect(noCallback.status).toBe(422);
    expect(noCallback.body.error_code).toBe('invalid_crawl');
    const badCursor = await http(env.url, `/v1/crawl/${id}/webhook-deliveries?cursor=bm90LWEtY3Vyc29y`, { token });
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error_code).toBe('invalid_cursor');
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await http(env.url, `/v1/crawl/${unknown}/webhook-deliveries`, { token })).status).toBe(404);
    const noDelivery = await http(env.url, `/v1/crawl/${id}/webhook-deliveries/${unknown}`, { token });
    expect(noDelivery.status).toBe(404);
    expect(noDelivery.body.error_code).toBe('webhook_not_found');
  });
});
