import http_ from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

/** A small documentation site: titles that share the site's name, some pages described by a meta tag and some only by their text. */
const PAGES: Record<string, { title: string; description?: string; body: string; links?: string[]; delayMs?: number }> = {
  '/': {
    title: 'Acme Docs',
    description: 'Acme makes widgets; these are its docs.',
    body: '<h1>Acme</h1><p>Welcome.</p>',
    links: ['/docs/', '/docs/install', '/docs/api-reference', '/blog/launch', '/about', '/tag/news', 'https://elsewhere.invalid/x'],
  },
  '/docs/': {
    title: 'Documentation | Acme Docs',
    description: 'Every guide, from a first request to production.',
    body: '<h1>Documentation</h1>',
    links: ['/docs/install', '/docs/api-reference'],
  },
  '/docs/install': {
    title: 'Install | Acme Docs',
    body: '<h1>Install</h1><p>Install Acme with one command on Linux, macOS and Windows. It takes a minute. Then read the API reference.</p>',
  },
  '/docs/api-reference': {
    title: 'API [v2] reference | Acme Docs',
    description: 'Every endpoint, field and error code of the Acme API.',
    body: '<h1>API</h1><p>Endpoints.</p>',
    // Slow enough that a GET right after the POST finds the crawl still running.
    delayMs: 1_500,
  },
  '/blog/launch': { title: 'We launched | Acme Docs', description: 'Acme 1.0 is out.', body: '<h1>We launched</h1><p>Today.</p>' },
  '/about': { title: 'About | Acme Docs', description: 'Who makes Acme.', body: '<h1>About</h1>' },
  '/tag/news': { title: 'News | Acme Docs', body: '<h1>News</h1><p>Short.</p>' },
};

function page(path: string): string {
  const p = PAGES[path]!;
  const meta = p.description ? `<meta name="description" content="${p.description}">` : '';
  const links = (p.links ?? []).map((href) => `<a href="${href}">${href}</a>`).join(' ');
  return `<!doctype html><html lang="en"><head><title>${p.title}</title>${meta}</head><body><main>${p.body}</main><nav>${links}</nav></body></html>`;
}

/**
 * POST /v1/llms-txt and GET /v1/llms-txt/{crawl_id} over real HTTP in both runtimes (issue 67): the
 * site crawled, its file made from the pages' own titles and descriptions (site name taken off,
 * sections by path, archives optional), as JSON or as the file; free to read; refusals typed.
 */
describe.each(runtimesUnderTest('llms-txt'))('llms.txt from a crawl — $name', (runtime) => {
  let site: http_.Server;
  let origin: string;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    site = http_.createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const found = PAGES[path];
      const answer = () => {
        if (!found) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(path));
      };
      if (found?.delayMs) setTimeout(answer, found.delayMs);
      else answer();
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const port = (site.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${port}` });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await new Promise((resolve) => site?.close(resolve));
  });

  it("crawls the site and makes its llms.txt from the pages' own titles and descriptions, as JSON or as the file", async () => {
    const started = await http(env.url, '/v1/llms-txt', { token, json: { url: `${origin}/`, max_pages: 20 } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ url: `${origin}/`, status: 'in_progress', llms_txt: null, sections: [] });
    const id = started.body.crawl_id;
    // The slow page holds the crawl: the file is not made yet, and a poller is told when to ask again.
    const early = await http(env.url, `/v1/llms-txt/${id}`, { token, headers: { accept: 'text/markdown' } });
    expect(early.status).toBe(200);
    expect(early.body).toMatchObject({ status: 'in_progress', llms_txt: null });
    expect(early.headers.get('retry-after')).toBe('2');
    const done = await eventually(
      async () => {
        const res = await http(env.url, `/v1/llms-txt/${id}`, { token });
        return res.body.status === 'completed' ? res : false;
      },
      { timeoutMs: 60_000, what: `llms.txt of crawl ${id}` },
    );
    expect(done.headers.get('x-credits-charged')).toBe('0');
    expect(done.body).toMatchObject({
      title: 'Acme Docs',
      summary: 'Acme makes widgets; these are its docs.',
      pages_scraped: 7,
      pages_listed: 6,
    });
    expect(done.body.credits_charged).toBe(7);
    expect(done.body.sections).toEqual([
      {
        name: 'Docs',
        optional: false,
        entries: [
          { title: 'Documentation', url: `${origin}/docs/`, description: 'Every guide, from a first request to production.' },
          {
            title: 'API (v2) reference',
            url: `${origin}/docs/api-reference`,
            description: 'Every endpoint, field and error code of the Acme API.',
          },
          {
            title: 'Install',
            url: `${origin}/docs/install`,
            description: 'Install Acme with one command on Linux, macOS and Windows. It takes a minute. Then read the API reference.',
          },
        ],
      },
      { name: 'Blog', optional: false, entries: [{ title: 'We launched', url: `${origin}/blog/launch`, description: 'Acme 1.0 is out.' }] },
      { name: 'Pages', optional: false, entries: [{ title: 'About', url: `${origin}/about`, description: 'Who makes Acme.' }] },
      { name: 'Optional', optional: true, entries: [{ title: 'News', url: `${origin}/tag/news`, description: null }] },
    ]);
    const file = await http(env.url, `/v1/llms-txt/${id}`, { token, headers: { accept: 'text/markdown' } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(file.headers.get('vary')).toMatch(/accept/i);
    expect(file.text).toBe(done.body.llms_txt);
    expect(file.text.startsWith('# Acme Docs\n\n> Acme makes widgets; these are its docs.\n\n## Docs\n\n- [Documentation](')).toBe(true);
    const plain = await http(env.url, `/v1/llms-txt/${id}`, { token, headers: { accept: 'text/plain' } });
    expect(plain.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    // The crawl is an ordinary crawl: its pages are charged there, and it lists the site's (absent) llms.txt.
    const crawl = await http(env.url, `/v1/crawl/${id}`, { token });
    expect(crawl.body).toMatchObject({ state: 'completed', completed: 7, credits_charged: 7, llms_txt: { status: 'none' } });
  });

  it('makes the file for any crawl of the client, refuses a plan, an unknown or malformed crawl id, and bad input', async () => {
    const crawl = await http(env.url, '/v1/crawl', { token, json: { url: `${origin}/docs/`, max_pages: 3, include_paths: ['/docs/**'] } });
    const made = await eventually(
      async () => {
        const res = await http(env.url, `/v1/llms-txt/${crawl.body.crawl_id}`, { token });
        return res.body.status === 'completed' ? res.body : false;
      },
      { timeoutMs: 60_000, what: 'llms.txt of a crawl' },
    );
    // The start page (/docs/) gives the title and summary; the other pages are its links.
    expect(made).toMatchObject({ title: 'Acme Docs', summary: 'Every guide, from a first request to production.' });
    expect(made.sections.flatMap((s: { entries: Array<{ url: string }> }) => s.entries.map((e) => e.url)).sort()).toEqual([
      `${origin}/docs/api-reference`,
      `${origin}/docs/install`,
    ]);

    const plan = await http(env.url, '/v1/crawl', { token, json: { url: `${origin}/`, dry_run: true } });
    const refused = await http(env.url, `/v1/llms-txt/${plan.body.crawl_id}`, { token });
    expect(refused.status).toBe(409);
    expect(refused.body.error_code).toBe('invalid_state');
    expect((await http(env.url, '/v1/llms-txt/8f14e45f-ceea-467f-a8f7-5d3e1b2c9a01', { token })).body.error_code).toBe('crawl_not_found');
    expect((await http(env.url, '/v1/llms-txt/not-an-id', { token })).status).toBe(404);

    const bad = await http(env.url, '/v1/llms-txt', { token, json: { url: 'not a url', max_pages: 5_000 } });
    expect(bad.status).toBe(422);
    const fields = bad.body.detail.map((e: { loc: string[] }) => e.loc.join('.'));
    expect(fields).toEqual(expect.arrayContaining(['body.url', 'body.max_pages']));
    expect((await http(env.url, '/v1/llms-txt', { json: { url: `${origin}/` } })).status).toBe(401);
  });
});
