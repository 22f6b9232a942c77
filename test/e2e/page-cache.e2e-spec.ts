import { articleHtml, type ChangingSite, startChangingSite } from '../support/changing-site';
import { eventually } from './support/eventually';
import { expectUsageHeaders, http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The page cache of POST /v1/sync/scrape (decision 0037), end to end over HTTP in both runtimes,
 * against a local origin that answers conditional requests: hits cost nothing and fetch nothing,
 * stale entries are revalidated with the origin's ETag or Last-Modified (a 304 costs 1 credit and
 * no browser), a changed page is fetched once, failures are never kept, entries are per client and
 * keyed on what changes the result.
 */
describe.each(runtimesUnderTest('page-cache'))('the page cache — $name', (runtime) => {
  let site: ChangingSite;
  let env: InProcessPlatform;
  let token: string;
  let otherToken: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    site = await startChangingSite();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port}` });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'growth' } })).body.token;
    otherToken = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'growth' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const scrape = (body: Record<string, unknown>, as = token) => http(env.url, '/v1/sync/scrape', { token: as, json: body });
  /** Fetches once with max_age, then waits until the kept entry is served (it is stored after the response). */
  const cached = async (body: Record<string, unknown>, as = token) => {
    const first = await scrape({ max_age: 3600, ...body }, as);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ cached: false, cache: { status: 'miss', age: 0, stored: true } });
    return eventually(
      async () => {
        const next = await scrape({ max_age: 3600, ...body }, as);
        return next.body.cached === true ? next : false;
      },
      { what: 'the kept entry served' },
    );
  };

  it('serves a fresh entry for 0 credits without asking the origin, marked cached with its age', async () => {
    site.pages.set('hit', { html: articleHtml('Hit', 'first') });
    const hit = await cached({ url: `${site.url}/hit` });
    const originRequests = site.hitsOf('hit');
    const again = await scrape({ url: `${site.url}/hit`, max_age: 3600 });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ statusCode: 200, cached: true, cache: { status: 'hit', stored: true } });
    expect(again.body.cache.age).toBeGreaterThanOrEqual(0);
    expect(again.body.html).toContain('first: plenty');
    expect(again.body.guidance).toMatchObject({ success: true, credits_charged: 0 });
    expect(again.headers.get('x-credits-charged')).toBe('0');
    expect(Number(again.headers.get('x-quota-used'))).toBe(Number(hit.headers.get('x-quota-used')));
    expectUsageHeaders(again);
    expect(site.hitsOf('hit')).toBe(originRequests);
    // Without max_age the cache is not asked: a fetch, charged.
    const plain = await scrape({ url: `${site.url}/hit` });
    expect(plain.body.cached).toBeUndefined();
    expect(plain.headers.get('x-credits-charged')).toBe('1');
    expect(site.hitsOf('hit')).toBe(originRequests + 1);
  });

  it('keys on what changes the result: format and options miss; header case and order, custom_id and the fragment do not', async () => {
    site.pages.set('keyed', { html: articleHtml('Keyed', 'keyed') });
    await cached({ url: `${site.url}/keyed#top`, headers: { 'X-One': '1', 'X-Two': '2' }, custom_id: 'a' });
    const same = await scrape({ url: `${site.url}/keyed`, max_age: 3600, headers: { 'x-two': '2', 'x-one': '1' }, custom_id: 'b' });
    expect(same.body.cache.status).toBe('hit');
    for (const different of [{ format: 'markdown' }, { headers: { 'X-One': '2', 'X-Two': '2' } }, { extract: { title: 'h1' } }]) {
      const res = await scrape({ url: `${site.url}/keyed`, max_age: 3600, headers: { 'X-One': '1', 'X-Two': '2' }, ...different });
      expect({ different, status: res.body.cache.status }).toEqual({ different, status: 'miss' });
    }
  });

  it("never serves one client's entry to another", async () => {
    site.pages.set('private', { html: articleHtml('Private', 'mine') });
    await cached({ url: `${site.url}/private` });
    const before = site.hitsOf('private');
    const theirs = await scrape({ url: `${site.url}/private`, max_age: 3600 }, otherToken);
    expect(theirs.body).toMatchObject({ cached: false, cache: { status: 'miss' } });
    expect(site.hitsOf('private')).toBe(before + 1);
  });

  it('revalidates a stale entry with its ETag: a 304 serves it for 1 credit, and confirms it for the next max_age', async () => {
    site.pages.set('etag', { html: articleHtml('Tagged', 'v1'), etag: '"v1"' });
    await cached({ url: `${site.url}/etag` });
    await sleep(1100);
    const revalidated = await scrape({ url: `${site.url}/etag`, max_age: 1 });
    expect(revalidated.status).toBe(200);
    expect(revalidated.body).toMatchObject({ statusCode: 200, cached: true, cache: { status: 'revalidated', age: 0 } });
    expect(revalidated.body.html).toContain('v1: plenty');
    expect(revalidated.headers.get('x-credits-charged')).toBe('1');
    expect(revalidated.body.guidance.credits_charged).toBe(1);
    expect(site.requests.filter((r) => r.path === '/etag').at(-1)).toMatchObject({ ifNoneMatch: '"v1"', status: 304 });
    const confirmed = await scrape({ url: `${site.url}/etag`, max_age: 1 });
    expect(confirmed.body.cache.status).toBe('hit');
  });

  it('fetches a changed page once: the conditional request is the fetch, and its answer replaces the entry', async () => {
    site.pages.set('changes', { html: articleHtml('Changes', 'old'), etag: '"old"' });
    await cached({ url: `${site.url}/changes` });
    site.pages.set('changes', { html: articleHtml('Changes', 'new'), etag: '"new"' });
    await sleep(1100);
    const before = site.hitsOf('changes');
    const changed = await scrape({ url: `${site.url}/changes`, max_age: 1 });
    expect(changed.body).toMatchObject({ cached: false, cache: { status: 'miss', stored: true } });
    expect(changed.body.html).toContain('new: plenty');
    expect(changed.headers.get('x-credits-charged')).toBe('1');
    expect(site.hitsOf('changes')).toBe(before + 1);
    expect(site.requests.filter((r) => r.path === '/changes').at(-1)).toMatchObject({ ifNoneMatch: '"old"', status: 200 });
    await eventually(async () => (await scrape({ url: `${site.url}/changes`, max_age: 3600 })).body.html?.includes('new: plenty'), {
      what: 'the new version kept',
    });
  });

  it('revalidates a browser scrape without a browser: one conditional GET, a 304 costs 1 credit instead of 5', async () => {
    site.pages.set('rendered', { html: articleHtml('Rendered', 'rendered'), etag: '"r1"' });
    const first = await scrape({ url: `${site.url}/rendered`, browser: true, browser_type: 'light', max_age: 3600 });
    expect(first.body).toMatchObject({ statusCode: 200, cache: { status: 'miss', stored: true } });
    expect(first.headers.get('x-credits-charged')).toBe('5');
    await eventually(
      async () => (await scrape({ url: `${site.url}/rendered`, browser: true, browser_type: 'light', max_age: 3600 })).body.cached,
      {
        what: 'the rendered page kept',
      },
    );
    await sleep(1100);
    const before = site.hitsOf('rendered');
    const revalidated = await scrape({ url: `${site.url}/rendered`, browser: true, browser_type: 'light', max_age: 1 });
    expect(revalidated.body).toMatchObject({ cached: true, cache: { status: 'revalidated' } });
    expect(revalidated.body.html).toContain('rendered: plenty');
    expect(revalidated.headers.get('x-credits-charged')).toBe('1');
    expect(site.hitsOf('rendered')).toBe(before + 1);
    expect(site.requests.at(-1)).toMatchObject({ path: '/rendered', ifNoneMatch: '"r1"', status: 304 });
  });

  it('revalidates with Last-Modified when the origin gave no ETag', async () => {
    site.pages.set('dated', { html: articleHtml('Dated', 'dated'), lastModified: new Date(Date.now() - 86_400_000) });
    await cached({ url: `${site.url}/dated` });
    await sleep(1100);
    const revalidated = await scrape({ url: `${site.url}/dated`, max_age: 1 });
    expect(revalidated.body.cache.status).toBe('revalidated');
    expect(site.requests.filter((r) => r.path === '/dated').at(-1)).toMatchObject({ ifNoneMatch: null, status: 304 });
    expect(site.requests.filter((r) => r.path === '/dated').at(-1)?.ifModifiedSince).not.toBeNull();
  });

  it('with revalidate=false, fetches a stale entry without asking the origin about it', async () => {
    site.pages.set('unasked', { html: articleHtml('Unasked', 'unasked'), etag: '"u"' });
    await cached({ url: `${site.url}/unasked` });
    await sleep(1100);
    const fetched = await scrape({ url: `${site.url}/unasked`, max_age: 1, revalidate: false });
    expect(fetched.body.cache.status).toBe('miss');
    expect(site.requests.filter((r) => r.path === '/unasked').at(-1)).toMatchObject({ ifNoneMatch: null, status: 200 });
  });

  it('never keeps a failed or blocked result, and max_age 0 always fetches', async () => {
    site.pages.set('broken', { html: '<h1>Down</h1>', status: 503 });
    const failed = await scrape({ url: `${site.url}/broken`, max_age: 3600 });
    expect(failed.body).toMatchObject({ statusCode: 503, cached: false, cache: { status: 'miss', stored: false } });
    await sleep(300);
    const again = await scrape({ url: `${site.url}/broken`, max_age: 3600 });
    expect(again.body.cache.status).toBe('miss');
    site.pages.set('always', { html: articleHtml('Always', 'always') });
    await cached({ url: `${site.url}/always` });
    const before = site.hitsOf('always');
    const zero = await scrape({ url: `${site.url}/always`, max_age: 0 });
    expect(zero.body.cache.status).toBe('miss');
    expect(site.hitsOf('always')).toBe(before + 1);
  });

  it('refuses a bad max_age with 422 at its field, and in a collection item reports it at the item', async () => {
    for (const max_age of [-1, 2_592_001, 1.5, '60', true]) {
      const res = await scrape({ url: `${site.url}/hit`, max_age, revalidate: 'yes' });
      expect({ max_age, status: res.status }).toEqual({ max_age, status: 422 });
      const fields = (res.body.detail as { loc: string[] }[]).map((problem) => problem.loc.join('.'));
      expect({ max_age, fields }).toEqual({ max_age, fields: expect.arrayContaining(['body.max_age', 'body.revalidate']) });
      expect(res.headers.get('x-credits-charged')).toBe('0');
    }
    const collection = await http(env.url, '/v1/async/collections', {
      token,
      json: { name: 'badly-cached', requests: [{ url: `${site.url}/hit`, max_age: -5 }] },
    });
    // A collection reports a bad item rather than refusing the body (spec 4.3): the item is not kept.
    expect(collection.status).toBe(201);
    expect(JSON.stringify(collection.body.invalid_items)).toContain('max_age');
  });

  /** A collection run to its end: its counters and its jobs' stored results. */
  const runOf = async (collectionId: string) => {
    const run = await http(env.url, `/v1/async/collections/${collectionId}/run`, { token, method: 'POST' });
    expect(run.status).toBe(201);
    const status = await eventually(
      async () => {
        const res = await http(env.url, `/v1/async/collections/${collectionId}/runs/${run.body.run_id}`, { token });
        return res.body.status === 'completed' ? res.body : false;
      },
      { what: 'the collection run completed', timeoutMs: 60_000 },
    );
    const items = (await http(env.url, `/v1/jobs?batch_id=${run.body.run_id}`, { token })).body.items as Array<{
      job_id: string;
      url: string;
    }>;
    const results = await Promise.all(items.map(async (item) => (await http(env.url, `/v1/jobs/${item.job_id}/data`, { token })).body));
    return { status, results };
  };

  it("serves a collection run's pages from the cache for 0 credits when its items carry max_age, and revalidates a stale one for 1", async () => {
    site.pages.set('batch-a', { html: articleHtml('Batch A', 'batch a') });
    site.pages.set('batch-b', { html: articleHtml('Batch B', 'batch b'), etag: '"b1"' });
    const created = await http(env.url, '/v1/async/collections', {
      token,
      json: {
        name: 'cached-batch',
        requests: [
          { url: `${site.url}/batch-a`, max_age: 3600 },
          { url: `${site.url}/batch-b`, max_age: 3600 },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.invalid_items).toEqual([]);
    const first = await runOf(created.body.id);
    expect(first.status).toMatchObject({ success_requests: 2, credits_charged: 2 });
    expect(first.results.map((r) => r.cache?.status)).toEqual(['miss', 'miss']);
    const fetched = site.hitsOf('batch-a') + site.hitsOf('batch-b');
    // The results are kept after the jobs answer: a sync scrape of the same request finds them.
    for (const page of ['batch-a', 'batch-b'])
      await eventually(async () => (await scrape({ url: `${site.url}/${page}`, max_age: 3600 })).body.cached === true, {
        what: `${page} kept`,
      });
    const second = await runOf(created.body.id);
    expect(second.status).toMatchObject({ success_requests: 2, credits_charged: 0 });
    for (const result of second.results) {
      expect(result).toMatchObject({ statusCode: 200, cached: true, cache: { status: 'hit', stored: true } });
      expect(result.guidance).toMatchObject({ success: true, credits_charged: 0 });
    }
    expect(site.hitsOf('batch-a') + site.hitsOf('batch-b')).toBe(fetched);

    // Older than max_age: b's entry is revalidated with its ETag, and the 304 serves it for 1 credit.
    await sleep(1100);
    const zero = await http(env.url, '/v1/async/collections', {
      token,
      json: { name: 'stale-batch', requests: [{ url: `${site.url}/batch-b`, max_age: 1 }] },
    });
    const revalidated = await runOf(zero.body.id);
    expect(revalidated.status).toMatchObject({ success_requests: 1, credits_charged: 1 });
    expect(revalidated.results[0]).toMatchObject({ cached: true, cache: { status: 'revalidated' } });
  });

  it("serves a crawl's pages from the cache when its page options carry max_age", async () => {
    site.pages.set('crawled', { html: articleHtml('Crawled', 'crawled') });
    const crawl = async () => {
      const started = await http(env.url, '/v1/crawl', {
        token,
        json: { url: `${site.url}/crawled`, sitemap: 'skip', max_depth: 0, max_pages: 1, scrape: { max_age: 3600 } },
      });
      expect(started.status).toBe(202);
      await eventually(
        async () => {
          const res = await http(env.url, `/v1/crawl/${started.body.crawl_id}`, { token });
          return res.body.state === 'completed';
        },
        { what: 'the crawl completed', timeoutMs: 60_000 },
      );
      const [page] = (await http(env.url, `/v1/jobs?batch_id=${started.body.crawl_id}`, { token })).body.items as Array<{ job_id: string }>;
      return (await http(env.url, `/v1/jobs/${page.job_id}/data`, { token })).body;
    };
    expect((await crawl()).cache).toMatchObject({ status: 'miss' });
    const fetched = site.hitsOf('crawled');
    await eventually(
      async () => (await scrape({ url: `${site.url}/crawled`, max_age: 3600, include_metadata: true })).body.cached === true,
      {
        what: 'the crawled page kept',
      },
    );
    expect(await crawl()).toMatchObject({ cached: true, cache: { status: 'hit' }, guidance: { credits_charged: 0 } });
    expect(site.hitsOf('crawled')).toBe(fetched);
  });
});
