import { articleHtml, type ChangingSite, startChangingSite } from '../support/changing-site';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { eventually } from './support/eventually';
import { completedTicks as ticksOf } from './support/monitor-ticks';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

/** A page with a price, a clock and a rotating ad: what a monitor must tell apart. */
function shopPage(title: string, text: string, price: string, clock: string, ad: string): string {
  return articleHtml(title, text).replace(
    '</body>',
    `<p class="price">${price}</p><p>Page generated at ${clock}.</p><div class="ad">Advert: ${ad}</div></body>`,
  );
}

/**
 * Monitors (issue 63, decision 0038), end to end over HTTP in both runtimes against a local site
 * whose pages change on a script: the first tick finds every page new; then a text change, a price
 * change (a field diff), a clock and a rotating advert the ignore rules leave out, and a page that
 * is gone; a tick with nothing changed sends no webhook; pause, tick now, delete; bad input is a
 * 4xx at its field.
 */
describe.each(runtimesUnderTest('monitors'))('monitors — $name', (runtime) => {
  let site: ChangingSite;
  let receiver: WebhookReceiver;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    site = await startChangingSite();
    receiver = await startWebhookReceiver();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiver.port}` });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'growth' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await receiver?.close();
    await site?.close();
  });

  const api = (path: string, init: { method?: string; json?: unknown } = {}, as = token) => http(env.url, path, { token: as, ...init });
  const completedTicks = (monitorId: string, n: number) => ticksOf(env.url, token, monitorId, n);
  const pageChanges = async (tickId: string) => {
    const { body } = await api(`/v1/jobs?batch_id=${tickId}&limit=100`);
    const byUrl: Record<string, { change_status: string | null; diff: string | null; json_diff: unknown }> = {};
    for (const job of body.items as Array<{ url: string; job_id: string }>) {
      const data = await api(`/v1/jobs/${job.job_id}/data`);
      byUrl[job.url.split('/').pop()!] = data.body.change ?? null;
    }
    return byUrl;
  };

  it('reports every page new on the first tick, then exactly what changed, and no webhook when nothing did', async () => {
    site.pages.set('text', { html: shopPage('Text', 'first words', '10 EUR', '10:00:01', 'shoes') });
    site.pages.set('clock', { html: shopPage('Clock', 'steady', '5 EUR', '10:00:01', 'hats') });
    site.pages.set('price', { html: shopPage('Price', 'steady', '20 EUR', '10:00:01', 'cars') });
    site.pages.set('gone', { html: shopPage('Gone', 'here today', '1 EUR', '10:00:01', 'boats') });
    const created = await api('/v1/monitors', {
      json: {
        name: 'shop',
        urls: ['text', 'clock', 'price', 'gone'].map((p) => `${site.url}/${p}`),
        schedule: { interval_seconds: 3600 },
        extract: { price: '.price' },
        ignore: { selectors: ['.ad'], patterns: ['\\d{2}:\\d{2}:\\d{2}'] },
        webhook_url: `${receiver.url}/monitor`,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ state: 'active', schedule: { interval_seconds: 3600 }, notify: 'changes' });
    const monitorId: string = created.body.id;

    const [first] = await completedTicks(monitorId, 1);
    expect(first).toMatchObject({ pages: 4, changes: 4, credits_charged: 4 });
    const firstPages = await pageChanges(first.tick_id);
    expect(Object.values(firstPages).map((c) => c?.change_status)).toEqual(['new', 'new', 'new', 'new']);
    const firstHook = await eventually(async () => receiver.received.find((r) => r.path === '/monitor'), { what: 'the first webhook' });
    expect(JSON.parse(firstHook.raw)).toMatchObject({ event: 'monitor.changed', monitor_id: monitorId, tick_id: first.tick_id });
    expect(JSON.parse(firstHook.raw).changes).toHaveLength(4);

    site.pages.set('text', { html: shopPage('Text', 'second words', '10 EUR', '11:30:45', 'socks') });
    site.pages.set('clock', { html: shopPage('Clock', 'steady', '5 EUR', '11:30:45', 'gloves') });
    site.pages.set('price', { html: shopPage('Price', 'steady', '25 EUR', '11:30:45', 'cars') });
    site.pages.delete('gone');
    expect((await api(`/v1/monitors/${monitorId}/tick`, { method: 'POST' })).status).toBe(200);
    const second = (await completedTicks(monitorId, 2))[0];
    expect(second).toMatchObject({ pages: 4, changes: 3 });
    const secondPages = await pageChanges(second.tick_id);
    expect(secondPages.clock?.change_status).toBe('same');
    expect(secondPages.gone?.change_status).toBe('removed');
    expect(secondPages.text?.change_status).toBe('changed');
    expect(secondPages.text?.diff).toMatch(/^-.*first words/m);
    expect(secondPages.text?.diff).toMatch(/^\+.*second words/m);
    expect(secondPages.price).toMatchObject({
      change_status: 'changed',
      json_diff: [{ type: 'CHANGE', path: ['price'], value: '25 EUR', oldValue: '20 EUR' }],
    });
    const hooks = await eventually(async () => {
      const sent = receiver.received.filter((r) => r.path === '/monitor');
      return sent.length >= 2 ? sent : false;
    });
    const secondHook = JSON.parse(hooks[1].raw);
    expect(secondHook.tick_id).toBe(second.tick_id);
    expect(secondHook.changes.map((c: { url: string; change_status: string }) => [c.url.split('/').pop(), c.change_status]).sort()).toEqual(
      [
        ['gone', 'removed'],
        ['price', 'changed'],
        ['text', 'changed'],
      ],
    );
    const listed = await api(`/v1/monitors/${monitorId}/changes?limit=3`);
    expect(listed.body.changes).toHaveLength(3);

    // Only the clock and the advert move: nothing changed, so no webhook.
    site.pages.set('clock', { html: shopPage('Clock', 'steady', '5 EUR', '12:00:00', 'scarves') });
    await api(`/v1/monitors/${monitorId}/tick`, { method: 'POST' });
    const third = (await completedTicks(monitorId, 3))[0];
    expect(third).toMatchObject({ changes: 0 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received.filter((r) => r.path === '/monitor')).toHaveLength(2);
  });

  it('over a crawl scope: each tick crawls it; a page no longer linked is removed, a newly linked one new', async () => {
    // The catalogue's links are in its nav, which the ignore rules leave out: only the pages' own text is compared.
    const catalogue = (linked: string[]) =>
      articleHtml('Catalogue', 'all our items').replace(
        '<body>',
        `<body><nav>${linked.map((name) => `<a href="/${name}">${name}</a>`).join(' ')}</nav>`,
      );
    site.pages.set('cat', { html: catalogue(['cat-a', 'cat-b', 'cat-c']) });
    for (const name of ['cat-a', 'cat-b', 'cat-c', 'cat-d']) site.pages.set(name, { html: articleHtml(name, `${name} as it was`) });
    const created = await api('/v1/monitors', {
      json: {
        crawl: { url: `${site.url}/cat`, max_depth: 1, sitemap: 'skip' },
        schedule: { interval_seconds: 3600 },
        ignore: { selectors: ['nav'] },
        webhook_url: `${receiver.url}/crawl-monitor`,
      },
    });
    expect(created.status).toBe(201);
    // max_pages is the plan's pages per monitor when not given (growth: 1,000).
    expect(created.body).toMatchObject({ urls: [], crawl: { url: `${site.url}/cat`, max_depth: 1, max_pages: 1000 } });
    const monitorId: string = created.body.id;

    const [first] = await completedTicks(monitorId, 1);
    expect(first).toMatchObject({ pages: 4, changes: 4, error: null });
    expect(Object.values(await pageChanges(first.tick_id)).map((c) => c?.change_status)).toEqual(['new', 'new', 'new', 'new']);

    // cat-c stays on the site (200) but is no longer linked; cat-d is linked now; cat-a's text changes.
    site.pages.set('cat', { html: catalogue(['cat-a', 'cat-b', 'cat-d']) });
    site.pages.set('cat-a', { html: articleHtml('cat-a', 'cat-a as it is now') });
    await api(`/v1/monitors/${monitorId}/tick`, { method: 'POST' });
    const second = (await completedTicks(monitorId, 2))[0];
    expect(second).toMatchObject({ pages: 4, changes: 3 });
    const secondPages = await pageChanges(second.tick_id);
    expect(Object.keys(secondPages).sort()).toEqual(['cat', 'cat-a', 'cat-b', 'cat-d']);
    expect([secondPages.cat?.change_status, secondPages['cat-b']?.change_status]).toEqual(['same', 'same']);
    expect(secondPages['cat-a']?.change_status).toBe('changed');
    expect(secondPages['cat-d']?.change_status).toBe('new');
    const changes = (await api(`/v1/monitors/${monitorId}/changes?limit=10`)).body.changes as Array<Record<string, unknown>>;
    const removed = changes.filter((c) => c.change_status === 'removed');
    expect(removed).toEqual([expect.objectContaining({ url: `${site.url}/cat-c`, tick_id: second.tick_id, job_id: null })]);
    const hook = await eventually(async () => {
      const sent = receiver.received.filter((r) => r.path === '/crawl-monitor');
      return sent.length >= 2 ? JSON.parse(sent[1].raw) : false;
    });
    expect(
      (hook.changes as Array<{ url: string; change_status: string; results_path: string | null }>)
        .map((c) => [c.url.split('/').pop(), c.change_status, c.results_path === null])
        .sort(),
    ).toEqual([
      ['cat-a', 'changed', false],
      ['cat-c', 'removed', true],
      ['cat-d', 'new', false],
    ]);

    // Unchanged again: cat-c is not removed twice, and a tick whose crawl failed a page removes nothing.
    site.pages.delete('cat-b');
    site.pages.set('cat-b', { html: '', status: 500 });
    await api(`/v1/monitors/${monitorId}/tick`, { method: 'POST' });
    const third = (await completedTicks(monitorId, 3))[0];
    expect(third).toMatchObject({ changes: 0 });
  });

  it('a crawl-scope tick whose start page robots.txt disallows scrapes nothing, charges nothing and removes nothing', async () => {
    site.pages.set('robots.txt', { html: 'User-agent: *\nDisallow: /private' });
    site.pages.set('private', { html: articleHtml('Private', 'private') });
    const created = await api('/v1/monitors', {
      json: { crawl: { url: `${site.url}/private`, sitemap: 'skip' }, schedule: { interval_seconds: 3600 } },
    });
    expect(created.status).toBe(201);
    const [first] = await completedTicks(created.body.id, 1);
    // robots.txt disallows the start page: the crawl ends at once with nothing scraped, so nothing is compared or charged.
    expect(first).toMatchObject({ pages: 0, changes: 0, credits_charged: 0 });
    site.pages.delete('robots.txt');
  });

  it('pauses before the next tick, refuses a tick while paused, resumes on the schedule, and deletes', async () => {
    site.pages.set('paused', { html: articleHtml('Paused', 'paused') });
    const created = await api('/v1/monitors', {
      json: { urls: [`${site.url}/paused`], schedule: { cron: '0 */6 * * *', timezone: 'Europe/Berlin' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    await completedTicks(id, 1);
    const paused = await api(`/v1/monitors/${id}/pause`, { method: 'POST' });
    expect(paused.body).toMatchObject({ state: 'paused', next_tick_at: null });
    expect((await api(`/v1/monitors/${id}/tick`, { method: 'POST' })).status).toBe(409);
    const resumed = await api(`/v1/monitors/${id}/resume`, { method: 'POST' });
    expect(resumed.body.state).toBe('active');
    expect(Date.parse(resumed.body.next_tick_at)).toBeGreaterThan(Date.now());
    expect(new Date(resumed.body.next_tick_at).getUTCMinutes()).toBe(0);
    expect((await api(`/v1/monitors/${id}`, { method: 'DELETE' })).body).toEqual({ deleted: true });
    expect((await api(`/v1/monitors/${id}`)).status).toBe(404);
    expect((await api(`/v1/monitors/not-a-uuid`)).status).toBe(404);
  });

  it('refuses bad input with a 4xx at its field, and monitors past the plan with 403', async () => {
    const base = { urls: [`${site.url}/text`], schedule: { interval_seconds: 3600 } };
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ schedule: { cron: 'every tuesday' } }, 'body.schedule.cron'],
      [{ schedule: { interval_seconds: 60 } }, 'body.schedule.interval_seconds'],
      [{ schedule: { cron: '* * * * *' } }, 'body.schedule.cron'],
      [{ schedule: { interval_seconds: 3600, cron: '0 * * * *' } }, 'body.schedule.cron'],
      [{ schedule: { cron: '0 * * * *', timezone: 'Mars/Olympus' } }, 'body.schedule.cron'],
      [{ ignore: { selectors: ['div[[['] } }, 'body.ignore.selectors.0'],
      [{ ignore: { patterns: ['(unclosed'] } }, 'body.ignore.patterns.0'],
      [{ scrape: { format: 'markdown' } }, 'body.scrape.format'],
      [{ scrape: { browser: 'yes' } }, 'body.scrape.browser'],
      [{ extract: 'h1' }, 'body.extract'],
      [{ urls: Array.from({ length: 1001 }, (_, i) => `${site.url}/p${i}`) }, 'body.urls'],
      [{ urls: ['ftp://example.com/'] }, 'body.urls'],
      [{ crawl: { url: `${site.url}/cat` } }, 'body.urls'],
      [{ urls: undefined, crawl: { url: `${site.url}/cat`, include_paths: ['re:[z-a]'] } }, 'body.crawl.include_paths.0'],
      [{ urls: undefined, crawl: { url: `${site.url}/cat`, exclude_paths: ['re:(open'] } }, 'body.crawl.exclude_paths.0'],
      [{ urls: undefined, crawl: { url: `${site.url}/cat`, max_pages: 5000 } }, 'body.crawl.max_pages'],
      [{ urls: undefined, crawl: { url: 'ftp://example.com/' } }, 'body.crawl.url'],
      [{ urls: undefined }, 'body.urls'],
    ];
    for (const [change, field] of refused) {
      const res = await api('/v1/monitors', { json: { ...base, ...change } });
      const fields = (res.body.detail as Array<{ loc: Array<string | number> }> | undefined)?.map((p) => p.loc.join('.'));
      expect({ change: Object.keys(change), status: res.status, has: fields?.includes(field) }).toEqual({
        change: Object.keys(change),
        status: 422,
        has: true,
      });
    }
    const blocked = await api('/v1/monitors', { json: { ...base, urls: ['http://169.254.169.254/latest/meta-data/'] } });
    expect({ status: blocked.status, code: blocked.body.error_code }).toEqual({ status: 422, code: 'target_blocked' });
    const free = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'free' } })).body.token;
    const daily = { ...base, schedule: { interval_seconds: 86_400 } };
    expect((await api('/v1/monitors', { json: daily }, free)).status).toBe(201);
    const second = await api('/v1/monitors', { json: daily }, free);
    expect({ status: second.status, code: second.body.error_code }).toEqual({ status: 403, code: 'monitor_limit_reached' });
  });
});
