import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { crawlJobs } from './support/crawl-jobs';
import { eventually } from './support/eventually';
import { http as request } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

/**
 * What max_depth means (docs/crawl.md): the start page, start_urls and the sitemaps' URLs are the
 * first pages, depth 0; each page's links are one level deeper; a crawl scrapes every level up to
 * max_depth and no further; a page found at two depths counts at the smaller; and a dry run's map
 * finds exactly the pages the crawl then scrapes. The site is small enough to know by heart:
 *
 *   /      → /a, /b          /a → /a/1     /a/1 → /a/1/x
 *   /s     → /s/1            /b → /b/1
 *   sitemap.xml lists / (the start page itself) and /s
 */
const LINKS: Record<string, string[]> = {
  '/': ['/a', '/b'],
  '/a': ['/a/1'],
  '/b': ['/b/1'],
  '/a/1': ['/a/1/x'],
  '/b/1': [],
  '/a/1/x': [],
  '/s': ['/s/1'],
  '/s/1': [],
};

/** The pages each crawl must scrape: [sitemap, max_depth] → paths. */
const EXPECTED: Array<{ sitemap: 'include' | 'skip'; maxDepth: number; paths: string[] }> = [
  { sitemap: 'skip', maxDepth: 0, paths: ['/'] },
  { sitemap: 'skip', maxDepth: 1, paths: ['/', '/a', '/b'] },
  { sitemap: 'skip', maxDepth: 2, paths: ['/', '/a', '/a/1', '/b', '/b/1'] },
  { sitemap: 'include', maxDepth: 0, paths: ['/', '/s'] },
  { sitemap: 'include', maxDepth: 1, paths: ['/', '/a', '/b', '/s', '/s/1'] },
  { sitemap: 'include', maxDepth: 2, paths: ['/', '/a', '/a/1', '/b', '/b/1', '/s', '/s/1'] },
];

interface DepthSite {
  url: string;
  port: number;
  close(): Promise<void>;
}

async function startDepthSite(): Promise<DepthSite> {
  let origin = '';
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
      return;
    }
    if (path === '/sitemap.xml') {
      const urls = ['/', '/s'].map((p) => `<url><loc>${origin}${p}</loc></url>`).join('');
      res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
      return;
    }
    const links = LINKS[path];
    if (!links) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const body = `<!doctype html><html><head><title>Page ${path}</title></head><body><h1>Page ${path}</h1>
${'<p>Enough readable text for a page of its own, about the path it lives at. </p>'.repeat(6)}
<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></body></html>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return { url: origin, port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe.each(runtimesUnderTest('crawl-depth'))('crawl depth — $name', (runtime) => {
  let site: DepthSite;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;

  const finished = (id: string) =>
    eventually(
      async () => {
        const res = await request(env.url, `/v1/crawl/${id}`, { token });
        return res.body.status === 'completed' ? res.body : false;
      },
      { timeoutMs: 60_000, what: `crawl ${id} completed` },
    );
  const pathsOf = async (id: string) => (await crawlJobs(env.url, token, id)).map((j) => new URL(j.url).pathname).sort();

  beforeAll(async () => {
    site = await startDepthSite();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port}` });
    token = (
      await request(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'enterprise', rate_limit_per_minute: 100_000 } })
    ).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  it.each(EXPECTED)(
    'sitemap $sitemap, max_depth $maxDepth: scrapes exactly the levels up to max_depth',
    async ({ sitemap, maxDepth, paths }) => {
      const started = await request(env.url, '/v1/crawl', { token, json: { url: `${site.url}/`, sitemap, max_depth: maxDepth } });
      expect(started.status).toBe(202);
      const done = await finished(started.body.crawl_id);
      expect(await pathsOf(started.body.crawl_id)).toEqual(paths);
      expect(done.discovered).toBe(paths.length);
      // The links found on the last level are refused for depth, never fetched.
      if (maxDepth < 2) expect(done.skipped.depth).toBeGreaterThan(0);
    },
  );

  it('a dry run finds the pages the crawl then scrapes, at every depth', async () => {
    for (const { sitemap, maxDepth, paths } of EXPECTED.filter((e) => e.maxDepth < 2 || e.sitemap === 'include')) {
      const planned = await request(env.url, '/v1/crawl', {
        token,
        json: { url: `${site.url}/`, sitemap, max_depth: maxDepth, dry_run: true },
      });
      const done = await finished(planned.body.crawl_id);
      expect({ sitemap, maxDepth, discovered: done.plan.discovered }).toEqual({ sitemap, maxDepth, discovered: paths.length });
    }
  });
});
