import http from 'node:http';
import { listenOnLoopback } from '../support/loopback-server';
import { http as api } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

const MARKDOWN = '# Guide\n\nThe site wrote this markdown itself.\n\n- one\n- two\n';
const PAGE = (head: string) =>
  `<!doctype html><html><head><title>Guide</title>${head}</head><body><nav><a href="/">Home</a></nav><main><h1>Guide</h1><p>The page as HTML, extracted.</p></main></body></html>`;

/** A site that publishes markdown the ways sites do, and one that lies about it. */
async function startMarkdownSite() {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    hits.push(`${path} ${req.headers.accept ?? ''}`);
    const wantsMarkdown = /text\/markdown/.test(req.headers.accept ?? '');
    const html = (head = '', headers: Record<string, string> = {}) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', vary: 'Accept', ...headers }).end(PAGE(head));
    const markdown = (body: string) => res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8', vary: 'Accept' }).end(body);
    if (path === '/negotiated') return wantsMarkdown ? markdown(MARKDOWN) : html();
    if (path === '/link-element') return html('<link rel="alternate" type="text/markdown" href="/link-element.md">');
    if (path === '/link-header') return html('', { link: '</link-header.md>; rel="alternate"; type="text/markdown"' });
    if (path === '/link-element.md' || path === '/link-header.md') return markdown(MARKDOWN);
    if (path === '/liar') return res.writeHead(200, { 'content-type': 'text/markdown' }).end(PAGE(''));
    if (path === '/liar-alternate') return html('<link rel="alternate" type="text/markdown" href="/liar">');
    if (path === '/elsewhere') return html('<link rel="alternate" type="text/markdown" href="http://127.0.0.2:9/x.md">');
    if (path === '/plain') return html();
    if (path === '/huge') return markdown(`# Huge\n\n${'A line of markdown text, again and again.\n'.repeat(270_000)}`);
    res.writeHead(404).end();
  });
  const site = await listenOnLoopback(server);
  return { ...site, hits };
}

/**
 * prefer_site_markdown (decision 0042), over HTTP in both runtimes: the site's own markdown by
 * Accept, by a <link> alternate and by a Link header, reported as source site; a site that answers
 * HTML under a markdown type, an alternate elsewhere and a site without markdown fall back to
 * extraction and say why; without the option nothing changes.
 */
describe.each(runtimesUnderTest('site-markdown'))('the site’s own markdown — $name', (runtime) => {
  let site: Awaited<ReturnType<typeof startMarkdownSite>>;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    site = await startMarkdownSite();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port}` });
    token = (await api(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'growth' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const scrape = (path: string, extra: Record<string, unknown> = {}) =>
    api(env.url, '/v1/sync/scrape', {
      token,
      json: { url: `${site.url}${path}`, format: 'markdown', prefer_site_markdown: true, ...extra },
    });

  it.each([
    ['/negotiated', 'accept', '/negotiated', null],
    ['/link-element', 'link_element', '/link-element.md', 'html'],
    ['/link-header', 'link_header', '/link-header.md', 'html'],
  ])('%s: the site’s markdown, offered by %s', async (path, offeredBy, from, html) => {
    const res = await scrape(path);
    expect(res.status).toBe(200);
    expect(res.body.markdown).toBe(MARKDOWN);
    expect(res.body.markdown_source).toMatchObject({
      source: 'site',
      offered_by: offeredBy,
      url: `${site.url}${from}`,
      bytes: Buffer.byteLength(MARKDOWN),
      fallback_reason: null,
    });
    if (html) expect(res.body.markdown_source.html_bytes).toBeGreaterThan(100);
    else expect(res.body.markdown_source.html_bytes).toBeNull();
    expect(res.headers.get('x-credits-charged')).toBe('1');
  });

  it.each([
    ['/liar', 'the site answered HTML under a markdown type'],
    ['/liar-alternate', 'the markdown alternate answered HTML under a markdown type'],
    ['/elsewhere', 'the markdown alternate is on another host'],
    ['/plain', 'the site offers no markdown'],
  ])('%s: extracted from the HTML, and why', async (path, reason) => {
    const res = await scrape(path);
    expect(res.status).toBe(200);
    expect(res.body.markdown).toContain('The page as HTML, extracted.');
    expect(res.body.markdown_source).toMatchObject({ source: 'extracted', url: null, fallback_reason: reason });
  });

  it('with a browser: the site’s markdown by one plain request, no browser started, charged as simple; otherwise rendered, and why', async () => {
    const offered = await scrape('/negotiated', { browser: true, browser_type: 'light' });
    expect(offered.status).toBe(200);
    expect(offered.body.markdown).toBe(MARKDOWN);
    expect(offered.body.markdown_source).toMatchObject({ source: 'site', offered_by: 'accept' });
    expect(offered.headers.get('x-credits-charged')).toBe('1');
    expect(offered.body.guidance.next_steps.join(' ')).toContain('no browser was started');

    const rendered = await scrape('/plain', { browser: true, browser_type: 'light' });
    expect(rendered.status).toBe(200);
    expect(rendered.body.markdown).toContain('The page as HTML, extracted.');
    expect(rendered.body.markdown_source).toMatchObject({ source: 'extracted', fallback_reason: 'the site offers no markdown' });
    expect(rendered.body.markdown_source.bytes).toBe(Buffer.byteLength(rendered.body.markdown));
    expect(rendered.headers.get('x-credits-charged')).toBe('5');

    const shot = await scrape('/negotiated', { browser: true, browser_type: 'light', screenshot: true });
    expect(shot.status).toBe(200);
    expect(shot.body.markdown).toContain('The page as HTML, extracted.');
    expect(shot.body.markdown_source.fallback_reason).toMatch(/needs the browser/);
    expect(shot.headers.get('x-credits-charged')).toBe('5');
  });

  it('a markdown answer past the 10 MB body cap is refused like any body, never read whole', async () => {
    const res = await scrape('/huge');
    expect(res.status).toBe(200);
    expect(res.body.markdown).toBeNull();
    expect(res.body.guidance).toMatchObject({ success: false, error_type: 'body_too_large' });
  });

  it('without the option: the page as always, and no markdown_source', async () => {
    const res = await scrape('/negotiated', { prefer_site_markdown: false });
    expect(res.body.markdown).toContain('The page as HTML, extracted.');
    expect(res.body.markdown_source).toBeUndefined();
    expect(site.hits.filter((hit) => hit.startsWith('/negotiated')).at(-1)).not.toContain('text/markdown');
  });
});
