import { type ChangingSite, startChangingSite } from '../support/changing-site';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

/** A page of many paragraphs, some in scripts whose characters take several tokens. */
function longArticle(marker: string): string {
  const paragraphs = Array.from(
    { length: 40 },
    (_, i) => `<p>${marker} paragraph ${i}: the quick brown fox jumps over the lazy dog, 日本語のテキスト ${i}, emoji 😀 and façade.</p>`,
  );
  return `<!doctype html><html><head><title>${marker}</title></head><body><article><h1>${marker}</h1>${paragraphs.join('')}</article></body></html>`;
}

/**
 * Token budgets on POST /v1/sync/scrape (decision 0042), over HTTP in both runtimes: the content
 * cut at block boundaries within max_tokens, read to the end by following cursors (from the page
 * cache for 0 credits), typed reasons instead of empty content, and cursors refused or restarted.
 */
describe.each(runtimesUnderTest('content-window'))('token budgets — $name', (runtime) => {
  let site: ChangingSite;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    site = await startChangingSite();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port}` });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'growth' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const scrape = (body: Record<string, unknown>) => http(env.url, '/v1/sync/scrape', { token, json: body });

  it('reads a page to its end in windows within the budget, each cut after a block, the rest from the page cache for 0 credits', async () => {
    site.pages.set('long', { html: longArticle('Windowed') });
    const url = `${site.url}/long`;
    const whole = await scrape({ url, format: 'markdown' });
    expect(whole.status).toBe(200);
    expect(whole.body.content_window).toBeUndefined();
    const parts: string[] = [];
    const credits: string[] = [];
    let cursor: string | undefined;
    for (let round = 0; round < 50; round += 1) {
      const res = await scrape({ url, format: 'markdown', max_tokens: 200, max_age: 3600, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      const window = res.body.content_window;
      expect(window).toMatchObject({ tokenizer: 'o200k_base', offset: parts.join('').length, error: null });
      expect(window.tokens).toBeLessThanOrEqual(200);
      expect(window.total_tokens).toBeGreaterThan(200);
      parts.push(res.body.markdown);
      credits.push(res.headers.get('x-credits-charged') ?? '');
      if (!window.truncated) {
        expect(window.cursor).toBeNull();
        break;
      }
      // Cut after a block: the window ends with a blank line.
      expect(res.body.markdown).toMatch(/\n\s*\n$/);
      cursor = window.cursor;
    }
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.join('')).toBe(whole.body.markdown);
    expect(credits[0]).toBe('1');
    // The windows after the first: the kept page, stored after the first answer, or fetched again (1 credit) until it is.
    expect(credits.slice(1).every((c) => c === '0' || c === '1')).toBe(true);
  });

  it('answers a page with nothing to read with a typed reason and null content, never an empty string', async () => {
    site.pages.set('empty', { html: '<!doctype html><html><head><title>x</title></head><body><div></div></body></html>' });
    const empty = await scrape({ url: `${site.url}/empty`, format: 'markdown', max_tokens: 100 });
    expect(empty.status).toBe(200);
    expect(empty.body.markdown).toBeNull();
    expect(empty.body.content_window).toMatchObject({ tokens: 0, truncated: false, cursor: null, error: { code: 'empty_content' } });

    site.pages.set('binary', { html: 'PK\u0003\u0004 not text', contentType: 'application/octet-stream' });
    const binary = await scrape({ url: `${site.url}/binary`, format: 'markdown', max_tokens: 100 });
    expect(binary.status).toBe(200);
    expect(binary.body.markdown).toBeNull();
    expect(binary.body.content_window.error.code).toBe('unsupported_content_type');
  });

  it('refuses a cursor it did not hand out before fetching anything, and restarts a window whose page changed', async () => {
    const url = `${site.url}/changing`;
    site.pages.set('changing', { html: longArticle('Before') });
    const hits = site.hitsOf('changing');
    const bad = await scrape({ url, format: 'markdown', max_tokens: 100, cursor: 'not-a-cursor' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'cursor'], type: 'invalid_cursor' });
    const lone = await scrape({ url, format: 'markdown', cursor: 'x' });
    expect(lone.status).toBe(422);
    expect(lone.body.detail[0]).toMatchObject({ loc: ['body', 'cursor'], type: 'missing_max_tokens' });
    expect(site.hitsOf('changing')).toBe(hits);

    const first = await scrape({ url, format: 'markdown', max_tokens: 100 });
    expect(first.body.content_window.truncated).toBe(true);
    site.pages.set('changing', { html: longArticle('After') });
    const next = await scrape({ url, format: 'markdown', max_tokens: 100, cursor: first.body.content_window.cursor });
    expect(next.status).toBe(200);
    expect(next.body.content_window).toMatchObject({ offset: 0, error: { code: 'content_changed' } });
    expect(next.body.markdown).toContain('After');
    const wrongTokenizer = await scrape({
      url,
      format: 'markdown',
      max_tokens: 100,
      tokenizer: 'cl100k_base',
      cursor: first.body.content_window.cursor,
    });
    expect(wrongTokenizer.status).toBe(422);
  });

  const read = (path: string, headers: Record<string, string> = {}) => http(env.url, `/v1/read/${path}`, { token, headers });

  it('GET /v1/read/{url}: the markdown as text, the same scrape and charge as POST /v1/sync/scrape, JSON when asked', async () => {
    site.pages.set('read', { html: longArticle('Readable') });
    const posted = await scrape({ url: `${site.url}/read?id=3`, format: 'markdown' });
    const text = await read(`${site.url}/read?id=3`);
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(text.headers.get('vary')).toContain('Accept');
    expect(text.headers.get('x-target-status')).toBe('200');
    expect(text.headers.get('x-credits-charged')).toBe('1');
    expect(text.text).toBe(posted.body.markdown);
    expect(site.requests.filter((r) => r.path === '/read').length).toBe(2);

    const json = await read(`${site.url}/read?only_main_content=true&include_metadata=true`, { accept: 'application/json' });
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ statusCode: 200, metadata: { title: 'Readable' } });
    expect(json.body.markdown).toContain('Readable paragraph 0');
    // A long target (its path past the router's 100-character limit on path parameters, and a long query) is read whole.
    const longName = `read/${'segment-'.repeat(40)}end`;
    site.pages.set(longName, { html: longArticle('Readable') });
    const long = await read(`${site.url}/${longName}?${'q=abcdefghij&'.repeat(40)}id=3`);
    expect(long.status).toBe(200);
    expect(long.text).toBe(posted.body.markdown);
    expect(site.requests.some((r) => r.path === `/${longName}`)).toBe(true);
    const html = await read(`${encodeURIComponent(`${site.url}/read`)}?format=html`);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.text).toContain('<article>');
  });

  it('GET /v1/read/{url} with max_tokens: the window as text, its counts and the next cursor in headers', async () => {
    site.pages.set('read-long', { html: longArticle('Paged') });
    const first = await read(`${site.url}/read-long?max_tokens=150&max_age=3600`);
    expect(first.status).toBe(200);
    expect(Number(first.headers.get('x-content-tokens'))).toBeLessThanOrEqual(150);
    expect(Number(first.headers.get('x-content-total-tokens'))).toBeGreaterThan(150);
    expect(first.headers.get('x-content-tokenizer')).toBe('o200k_base');
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toBeTruthy();
    const second = await read(`${site.url}/read-long?max_tokens=150&max_age=3600&cursor=${cursor}`);
    expect(second.status).toBe(200);
    const whole = await scrape({ url: `${site.url}/read-long`, format: 'markdown' });
    expect(whole.body.markdown.startsWith(first.text + second.text)).toBe(true);
  });

  it('GET /v1/read/{url}: nothing to read, a malformed target and a missing token are errors with their codes', async () => {
    site.pages.set('read-empty', { html: '<!doctype html><html><body><div></div></body></html>' });
    const empty = await read(`${site.url}/read-empty`);
    expect(empty.status).toBe(422);
    expect(empty.body).toMatchObject({ error_code: 'empty_content' });
    site.pages.set('read-binary', { html: 'PK\u0003\u0004', contentType: 'application/octet-stream' });
    const binary = await read(`${site.url}/read-binary`);
    expect(binary.status).toBe(415);
    expect(binary.body).toMatchObject({ error_code: 'unsupported_content_type' });
    const malformed = await read('ftp://example.com/file');
    expect(malformed.status).toBe(422);
    expect(malformed.body).toMatchObject({ error_code: 'invalid_url' });
    const badOption = await read(`${site.url}/read-empty?max_tokens=3`);
    expect(badOption.status).toBe(422);
    expect(badOption.body.detail[0].loc).toEqual(['query', 'max_tokens']);
    const anonymous = await http(env.url, `/v1/read/${site.url}/read`);
    expect(anonymous.status).toBe(401);
  });
});
