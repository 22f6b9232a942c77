import { DATABASE, type DatabaseConnection } from '@lib/persistence';
import { normalUrl } from '@lib/url-normal-form';
import { type GeneratedSite, startGeneratedSite } from '../../bench/src/generated-site';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

const keyOf = (url: string) => normalUrl(url)!.key;

/**
 * POST /v1/map over real HTTP in both runtimes, against the generated 10,000-article site (issue
 * 39): every article and list page found, each once, nothing robots.txt disallows fetched or
 * listed, the bounds honoured (limit, sitemap modes), hostile sitemaps and redirect loops answered
 * within bounds, bad input refused with the contract's body, one credit recorded per answered map.
 */
describe.each(runtimesUnderTest('site-map'))('POST /v1/map — $name', (runtime) => {
  let site: GeneratedSite;
  let env: InProcessPlatform;
  let token: string;
  let clientId: string;
  let cleanup: () => Promise<void> = async () => undefined;
  const ledger = () => env.platform.gateway.get<symbol, DatabaseConnection>(DATABASE);
  const ledgerRows = async () =>
    ledger().sql.query<{ credits: number }>('select credits from credit_ledger_entries where client_id = $1', [clientId]);
  // The longest timeout (60 s): a busy machine must not make the clock the bound a test is about.
  const map = (json: Record<string, unknown>) => http(env.url, '/v1/map', { token, json: { timeout_ms: 60_000, ...json } });

  beforeAll(async () => {
    site = await startGeneratedSite({ robotsNamesHostileSitemaps: true });
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port}` });
    const created = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } })).body;
    token = created.token;
    clientId = created.client_id;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  it('maps the whole site from its sitemap index (gzip members) and its links: every article and list page once, nothing disallowed', async () => {
    site.hits.clear();
    const res = await map({ url: `${site.url}/`, limit: 100_000 });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-charged')).toBe('1');
    const body = res.body;
    const keys = body.urls.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    const listed = new Set(keys);
    const missingArticles = site.truth.articles.filter((url) => !listed.has(keyOf(url)));
    const missingLists = site.truth.listPages.filter((url) => !listed.has(keyOf(url)));
    expect({ missingArticles: missingArticles.length, missingLists }).toEqual({ missingArticles: 0, missingLists: [] });
    for (const path of site.truth.disallowedPaths) {
      expect(listed.has(keyOf(`${site.url}${path}`))).toBe(false);
      expect(site.hits.get(path) ?? 0).toBe(0);
    }
    expect(body.count).toBe(body.urls.length);
    // 250 pages (the default) do not reach every page within two hops; the sitemaps fill in the rest.
    expect(body).toMatchObject({ truncated: true, stopped_by: 'page_fetches', pages_fetched: 250 });
    expect(body.robots).toMatchObject({ status: 'found', crawl_delay_seconds: null });
    // The site's llms.txt: listed by section with each link's scope; none of its links is fetched for it.
    expect(body.llms_txt).toEqual({
      url: `${site.url}/llms.txt`,
      status: 'found',
      title: 'Generated site',
      summary: 'A site generated for the crawler tests.',
      sections: [
        {
          name: 'Pages',
          optional: false,
          entries: [
            { title: 'Sections', url: `${site.url}/sitemaps/sections.xml`, description: 'the sections sitemap', in_scope: true },
            { title: 'Only here', url: `${site.url}/llms-only/page`, description: 'named by llms.txt alone', in_scope: true },
          ],
        },
        {
          name: 'Optional',
          optional: true,
          entries: [{ title: 'Elsewhere', url: 'https://elsewhere.invalid/docs.md', description: null, in_scope: false }],
        },
      ],
      entries_total: 3,
    });
    expect(site.hits.get('/llms-only/page') ?? 0).toBe(0);
    expect(listed.has(keyOf(`${site.url}/llms-only/page`))).toBe(false);
    const outcomes = Object.fromEntries(body.sitemaps.map((s: { url: string; outcome: string }) => [new URL(s.url).pathname, s.outcome]));
    expect(outcomes).toMatchObject({
      '/sitemap.xml': 'read',
      '/sitemaps/articles-0.xml.gz': 'read',
      '/sitemaps/sections.xml': 'read',
      '/hostile/gzip-bomb.xml.gz': 'too_large',
      '/hostile/entity-bomb.xml': 'malformed',
      '/hostile/huge.xml': 'too_large',
    });
    expect(body.skipped.robots).toBeGreaterThan(0);
    // Every page fetched at most once, whatever spelling linked it.
    const fetchedTwice = [...site.hits.entries()].filter(([, n]) => n > 1).map(([path]) => path);
    expect(fetchedTwice).toEqual([]);
    const rows = await ledgerRows();
    expect(rows.map((r) => Number(r.credits))).toEqual([1]);
  });

  it('stops at limit, and reads only sitemaps (sitemap=only) or only links (sitemap=skip) when asked', async () => {
    const limited = await map({ url: `${site.url}/`, limit: 100 });
    expect(limited.status).toBe(200);
    expect(limited.body).toMatchObject({ count: 100, truncated: true, stopped_by: 'limit' });

    const only = await map({ url: `${site.url}/`, sitemap: 'only', limit: 100_000 });
    expect(only.body.pages_fetched).toBe(0);
    expect(only.body.sources.links).toBe(0);
    expect(only.body.count).toBe(site.truth.sitemapUrls.length);

    const skip = await map({ url: `${site.url}/s2/`, sitemap: 'skip', max_depth: 0 });
    expect(skip.body.sitemaps).toEqual([]);
    expect(skip.body.pages_fetched).toBe(1);
    expect(skip.body.sources.sitemap).toBe(0);
    expect(skip.body.urls.map(keyOf)).toEqual(expect.arrayContaining([keyOf(`${site.url}/s2/p2`), keyOf(`${site.url}/s2/?page=2`)]));
  });

  it('keeps to the path patterns (glob and re:) and ends redirect loops and link farms within its bounds', async () => {
    const globbed = await map({ url: `${site.url}/`, include_paths: ['/s7/**'], sitemap: 'only', limit: 100_000 });
    expect(globbed.body.count).toBe(site.truth.sitemapUrls.filter((u) => new URL(u).pathname.startsWith('/s7/')).length);
    const excluded = await map({ url: `${site.url}/`, exclude_paths: ['re:^/s[0-9]+/p[0-9]*5$'], sitemap: 'only', limit: 100_000 });
    expect(excluded.body.urls.some((u: string) => /\/p\d*5$/.test(u))).toBe(false);
    expect(excluded.body.skipped.scope).toBe(1_000);

    const loop = await map({ url: `${site.url}/hostile/loop`, sitemap: 'skip' });
    expect(loop.status).toBe(200);
    expect(loop.body.count).toBe(0);

    const farm = await map({ url: `${site.url}/hostile/farm/0`, sitemap: 'skip', max_depth: 10, page_fetches: 50, limit: 100_000 });
    expect(farm.body).toMatchObject({ truncated: true, stopped_by: 'page_fetches', pages_fetched: 50 });
  });

  it('refuses bad input with the contract body before any fetch', async () => {
    site.hits.clear();
    const badPattern = await map({ url: `${site.url}/`, include_paths: ['re:(unclosed'] });
    expect(badPattern.status).toBe(400);
    expect(badPattern.body.error_code).toBe('invalid_pattern');
    const override = await map({ url: `${site.url}/`, ignore_robots: true });
    expect(override.status).toBe(403);
    expect(override.body.error_code).toBe('robots_override_not_allowed');
    const privateTarget = await map({ url: 'http://10.0.0.1/' });
    expect(privateTarget.status).toBe(422);
    expect(privateTarget.body.error_code).toBe('target_blocked');
    const invalid = await map({ url: 'ftp://example.com/', limit: 1_000_000 });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.limit', 'body.url']);
    expect(site.hits.size).toBe(0);
  });
});
