import { BOOT_DATA_POSTS, closedLocalPort, type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { expectUsageHeaders, http, type HttpResult } from './support/http';
import { startLocalProxies } from './support/local-proxies';
import { runtimesUnderTest } from './support/runtimes';

/**
 * POST /v1/sync/scrape in simple mode, end to end over HTTP against a local fixture site, in both
 * runtimes: formats, extraction, binary bodies, failures with guidance, SSRF, and credits that
 * agree between X-Credits-Charged, guidance and the ledger.
 */
describe.each(runtimesUnderTest('scrape'))('POST /v1/sync/scrape — $name', (runtime) => {
  let site: FixtureSite;
  let env: InProcessPlatform;
  let url: string;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;
  let closedPort: number;

  beforeAll(async () => {
    site = await startFixtureSite();
    closedPort = await closedLocalPort();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${closedPort}` });
    url = env.url;
    // The file's requests outnumber a starter's per-minute limit; limits have tests of their own.
    const created = await http(url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'starter', rate_limit_per_minute: 600 } });
    token = created.body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const scrape = (body: Record<string, unknown>) => http(url, '/v1/sync/scrape', { token, json: body });
  const quotaUsed = async () => Number((await http(url, '/v1/plans', { token })).headers.get('x-quota-used'));

  it('returns the page as HTML with timings and guidance, and charges 1 credit in the ledger', async () => {
    const before = await quotaUsed();
    const res = await scrape({ url: `${site.url}/page` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      statusCode: 200,
      message: 'OK',
      markdown: null,
      screenshot: null,
      potentiallyBlockedByCaptcha: false,
      content_type: 'text/html; charset=utf-8',
      body_base64: null,
      body_url: null,
    });
    expect(res.body.html).toContain('<h1>Fixture article</h1>');
    expect(res.body.guidance).toMatchObject({ success: true, error_type: null, credits_charged: 1, credits_refunded: false });
    expect(Object.keys(res.body.timings).sort()).toEqual(['extraction_ms', 'navigation_ms', 'proxy_ms', 'queue_wait_ms', 'total_ms']);
    expect(res.headers.get('x-credits-charged')).toBe('1');
    expect(Number(res.headers.get('x-quota-used'))).toBe(before + 1);
    expectUsageHeaders(res);
  });

  it('converts to markdown with absolute links and extracts with CSS and XPath', async () => {
    const res = await scrape({
      url: `${site.url}/page`,
      format: 'markdown',
      extract: { title: 'h1', next: { selector: '//a/@href' }, paragraphs: { selector: 'css:p', multiple: true } },
    });
    expect(res.body.html).toBeNull();
    expect(res.body.markdown).toMatch(/^# Fixture article/);
    expect(res.body.markdown).toContain(`[Next](${site.url}/next)`);
    expect(res.body.extracted_data).toMatchObject({ title: 'Fixture article', next: `${site.url}/next` });
    expect(res.body.extracted_data.paragraphs).toHaveLength(50);
  });

  it('converts a real-shaped page: GFM tables, code blocks, escaped text, no script text, metadata, and data: images never inlined', async () => {
    const res = await scrape({ url: `${site.url}/news`, format: 'markdown', include_metadata: true });
    expect(res.status).toBe(200);
    const md: string = res.body.markdown;
    expect(md).toContain('| Sencha | 80 °C |\n| --- | --- |\n| Gyokuro | 60 °C |');
    expect(md).toContain('```\nsteep(tea, { minutes: 2 })\n```');
    expect(md).toContain('Use \\<filtered> water.');
    expect(md).toContain(`![A kettle](${site.url}/img/kettle.jpg) Inline chart`);
    for (const absent of ['data:', 'tracking', 'this ended the script', '<table', '<img']) expect(md).not.toContain(absent);
    expect(md).toContain('Accept all');
    expect(res.body.metadata).toEqual({
      title: 'Green tea, brewed right',
      description: 'How to brew green tea.',
      language: 'en-GB',
      canonical_url: `${site.url}/news/green-tea`,
      canonical_source: 'link',
      final_url: `${site.url}/news`,
      links: [`${site.url}/`, `${site.url}/shop`, `${site.url}/news`, `${site.url}/black`, `${site.url}/imprint`],
      page_type: 'article',
      main_content: null,
    });
    expect(res.body.guidance).toMatchObject({ success: true, next_steps: [] });
  });

  it('only_main_content keeps the article and drops navigation, banner, sidebar and footer; include_images=false drops images', async () => {
    const res = await scrape({ url: `${site.url}/news`, format: 'markdown', only_main_content: true, include_images: false });
    const md: string = res.body.markdown;
    expect(md.startsWith('# Green tea, brewed right\n\nGreen tea wants water')).toBe(true);
    for (const dropped of ['Home', 'cookies', 'Accept all', 'Related', 'Imprint', 'kettle', '![']) expect(md).not.toContain(dropped);
    expect(md).toContain('| Sencha | 80 °C |');
    // html stays the page as served; metadata is there on request.
    const html = await scrape({ url: `${site.url}/news`, only_main_content: true, include_metadata: true });
    expect(html.body.html).toContain('cookie-banner');
    expect(html.body.metadata.title).toBe('Green tea, brewed right');
    expect((await scrape({ url: `${site.url}/news`, format: 'markdown' })).body.metadata).toBeNull();
  });

  it('refuses markdown options of the wrong type with the field named (422)', async () => {
    for (const [field, value] of [
      ['only_main_content', 'yes'],
      ['include_images', 1],
      ['include_metadata', 'true'],
    ] as const) {
      const res = await scrape({ url: `${site.url}/news`, format: 'markdown', [field]: value });
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).toContain(field);
    }
  });

  it('a collection job honours only_main_content like a sync scrape', async () => {
    const created = await http(url, '/v1/async/collections', {
      token,
      json: { name: 'main-content', requests: [{ url: `${site.url}/news`, format: 'markdown', only_main_content: true }] },
    });
    expect(created.status).toBe(201);
    const run = await http(url, `/v1/async/collections/${created.body.id}/run`, { token, method: 'POST' });
    let result: HttpResult | null = null;
    // Polled gently: this client's plan allows 60 requests a minute.
    for (let tries = 0; tries < 60; tries += 1) {
      result = await http(url, `/v1/async/collections/${created.body.id}/runs/${run.body.run_id}/jobs/${run.body.job_ids[0]}/result`, {
        token,
      });
      if (result.status === 200) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(result!.status).toBe(200);
    expect(result!.body.markdown.startsWith('# Green tea, brewed right')).toBe(true);
    expect(result!.body.markdown).not.toContain('Accept all');
  });

  it('returns binary bodies base64-encoded with an empty html', async () => {
    const res = await scrape({ url: `${site.url}/file.pdf` });
    expect(res.body).toMatchObject({ html: '', content_type: 'application/pdf' });
    expect(Buffer.from(res.body.body_base64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('sends POST payloads, headers and cookies', async () => {
    const res = await scrape({
      url: `${site.url}/echo`,
      http_method: { method: 'post', payload: { q: 'tea' }, content_type: 'form' },
      headers: { 'X-Trace': 't1' },
      cookies: { a: 'b' },
    });
    expect(JSON.parse(res.body.html)).toMatchObject({ method: 'POST', body: 'q=tea', headers: { 'x-trace': 't1', cookie: 'a=b' } });
  });

  it("carries a body over NATS's 1 MB message limit (3 MB)", async () => {
    const res = await scrape({ url: `${site.url}/big?bytes=3000000` });
    expect(res.status).toBe(200);
    expect(res.body.html).toHaveLength(3_000_000);
  });

  it('reports a target 404 with guidance, and charges it (the site answered)', async () => {
    const res = await scrape({ url: `${site.url}/status/404` });
    expect(res.status).toBe(200);
    expect(res.body.statusCode).toBe(404);
    expect(res.body.guidance).toMatchObject({
      success: false,
      error_type: 'http_4xx',
      credits_charged: 1,
      stop_reason: expect.stringContaining('does not exist'),
    });
    expect(res.headers.get('x-credits-charged')).toBe('1');
  });

  it('does not charge an infrastructure failure and says so', async () => {
    const before = await quotaUsed();
    const res = await scrape({ url: `http://127.0.0.1:${closedPort}/` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 0, html: null });
    expect(res.body.guidance).toMatchObject({ success: false, error_type: 'connection_error', credits_charged: 0, credits_refunded: true });
    expect(Object.keys(res.body.timings)).toContain('total_ms');
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(await quotaUsed()).toBe(before);
  });

  it.each([
    ['a loopback address that is not allowlisted', () => `http://127.0.0.2:${site.port}/`, 'target_blocked', 'private_ip'],
    ['a privileged port', () => 'http://127.0.0.1:9/', 'target_blocked', 'invalid_port'],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/', 'target_blocked', 'private_ip'],
    ['localhost', () => 'http://localhost/', 'target_blocked', 'blocked_hostname'],
    ['a file URL', () => 'file:///etc/passwd', 'invalid_url', 'invalid_protocol'],
    ['text that is no URL', () => 'not a url', 'invalid_url', 'malformed_url'],
    ['a URL without a host', () => 'http://', 'invalid_url', 'malformed_url'],
  ])('refuses %s with 422 and charges nothing', async (_label, target, errorCode, reason) => {
    const before = await quotaUsed();
    const res = await scrape({ url: target() });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: expect.any(String), error_code: errorCode, reason });
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(await quotaUsed()).toBe(before);
  });

  it('says a missing or empty url is url_required, in the 422 list at the field, and charges nothing', async () => {
    const before = await quotaUsed();
    for (const body of [{}, { url: '' }, { url: '  ' }, { url: null }]) {
      const res = await scrape(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['body', 'url'], msg: expect.stringContaining('required'), type: 'url_required' }] });
    }
    expect(await quotaUsed()).toBe(before);
  });

  it('applies the rules of spec 4.2 before any work', async () => {
    const screenshot = await scrape({ url: `${site.url}/page`, screenshot: true });
    expect(screenshot.status).toBe(422);
    expect(screenshot.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'screenshot'], type: 'requires_browser' })]);
    const combo = await scrape({ url: `${site.url}/page`, browser: true, http_method: { method: 'post' } });
    expect(combo.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'http_method'], type: 'invalid_combination' })]);
    const selector = await scrape({ url: `${site.url}/page`, extract: { broken: 'css:li[' } });
    expect(selector.status).toBe(422);
    expect(selector.body).toMatchObject({ error_code: 'invalid_scrape_request', detail: expect.stringContaining('extract.broken') });
  });

  it('flags a CAPTCHA wall, names the provider and suggests the next request', async () => {
    const res = await scrape({ url: `${site.url}/captcha` });
    expect(res.body.potentiallyBlockedByCaptcha).toBe(true);
    expect(res.body.guidance).toMatchObject({
      success: false,
      error_type: 'captcha',
      error_provider: 'recaptcha',
      credits_charged: 1,
      suggested_request: { browser: true, retry_on_block: true },
    });
  });

  it('calls a page whose posts are only in boot data an empty shell, and still reads their text into markdown', async () => {
    const res = await scrape({ url: `${site.url}/boot-data`, format: 'markdown' });
    expect(res.body.guidance).toMatchObject({ success: false, error_type: 'empty_shell', credits_charged: 1 });
    for (const post of BOOT_DATA_POSTS) expect(res.body.markdown).toContain(post);
    expect(res.body.markdown).not.toContain('pageProps');
    expect(res.body.guidance.next_steps.join(' ')).toMatch(/boot data for its scripts \(__NEXT_DATA__\)/);
  });

  it('retries a block with retry_on_block and charges only the successful attempt', async () => {
    const blocked = await scrape({ url: `${site.url}/flaky-block?key=${runtime.mode}-a&n=2` });
    expect(blocked.body).toMatchObject({ statusCode: 403, guidance: { error_type: 'hard_block', credits_charged: 1 } });
    const before = await quotaUsed();
    const retried = await scrape({ url: `${site.url}/flaky-block?key=${runtime.mode}-b&n=2`, retry_on_block: true });
    expect(retried.body).toMatchObject({ statusCode: 200, guidance: { success: true, credits_charged: 1 } });
    expect(retried.headers.get('x-credits-charged')).toBe('1');
    expect(await quotaUsed()).toBe(before + 1);
    const gaveUp = await scrape({ url: `${site.url}/flaky-block?key=${runtime.mode}-c&n=9`, retry_on_block: true });
    expect(gaveUp.body).toMatchObject({ statusCode: 403, guidance: { error_type: 'hard_block', credits_charged: 1 } });
  });

  it('downloads files as base64 with their MIME type (spec 2.9), 1 credit', async () => {
    const res = await http(url, '/v1/sync/download', { token, json: { url: `${site.url}/file.pdf` } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ contentType: 'application/pdf', statusCode: 200, message: 'OK' });
    expect(Buffer.from(res.body.content, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    expect(typeof res.body.executionTime).toBe('number');
    expect(res.headers.get('x-credits-charged')).toBe('1');
    const failed = await http(url, '/v1/sync/download', { token, json: { url: `http://127.0.0.1:${closedPort}/x.pdf` } });
    expect(failed.body).toMatchObject({ content: null, statusCode: 0 });
    expect(failed.headers.get('x-credits-charged')).toBe('0');
    expect((await http(url, '/v1/sync/download', { token, json: { url: 'http://10.0.0.1/x.pdf' } })).status).toBe(422);
    expect((await http(url, '/v1/sync/download', { token, json: { url: `${site.url}/file.pdf`, use_proxy: 'US' } })).status).toBe(403);
  });

  it('sends the language and a mobile header set for window_size=mobile', async () => {
    const res = await scrape({ url: `${site.url}/echo`, language: 'fr-CH', window_size: 'mobile' });
    const echoed = JSON.parse(res.body.html);
    expect(echoed.headers['accept-language']).toBe('fr-CH,fr;q=0.9');
    expect(echoed.headers['user-agent']).toMatch(/Mobile|Android|iPhone/);
  });

  it('vets every redirect hop: a redirect to cloud metadata is refused, not fetched, and not charged', async () => {
    const res = await scrape({ url: `${site.url}/redirect-to?url=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      statusCode: 0,
      guidance: { error_type: 'target_blocked', credits_charged: 0, stop_reason: expect.any(String) },
    });
    expect(res.headers.get('x-credits-charged')).toBe('0');
  });

  it('refuses with 429 before fetching once the monthly credits are spent', async () => {
    const small = await http(url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'free', monthly_credits: 1 } });
    const first = await http(url, '/v1/sync/scrape', { token: small.body.token, json: { url: `${site.url}/page` } });
    expect(first.headers.get('x-quota-remaining')).toBe('0');
    const hitsBefore = site.hits;
    const second = await http(url, '/v1/sync/scrape', { token: small.body.token, json: { url: `${site.url}/page` } });
    expect(second.status).toBe(429);
    expect(second.body.error_code).toBe('quota_exceeded');
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(second.headers.get('x-credits-charged')).toBe('0');
    expect(site.hits).toBe(hitsBefore);
  });

  it('answers 403 for an unapproved country proxy, before any fetch or charge', async () => {
    expect((await scrape({ url: `${site.url}/page`, use_proxy: 'DE' })).body.error_code).toBe('country_not_approved');
    const browser = await scrape({ url: `${site.url}/page`, use_proxy: { proxy: 'fr' }, browser: true });
    expect(browser.status).toBe(403);
    expect(browser.headers.get('x-credits-charged')).toBe('0');
  });
});

describe.each(runtimesUnderTest('proxied'))('simple scrapes through PROXY_POOL — $name', (runtime) => {
  let site: FixtureSite;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;
  let proxies: Awaited<ReturnType<typeof startLocalProxies>>;
  const counts = [0, 0];

  beforeAll(async () => {
    site = await startFixtureSite();
    proxies = await startLocalProxies(2, (i) => ((counts[i] += 1), {}));
    const dead = await closedLocalPort();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    const pool = { any: [`http://127.0.0.1:${proxies.ports[0]}`, `http://127.0.0.1:${dead}`, `http://127.0.0.1:${proxies.ports[1]}`] };
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port}`, PROXY_POOL: JSON.stringify(pool) });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await proxies?.close();
    await site?.close();
  });

  it('rotates over the pool and retries a dead proxy on the next one', async () => {
    const results = [];
    for (let i = 0; i < 6; i += 1) {
      results.push(
        await http(env.url, '/v1/sync/scrape', {
          token,
          json: { url: `${site.url}/page`, use_proxy: { proxy: 'any', max_retries: 2, delay_seconds: 0 } },
        }),
      );
    }
    expect(results.map((r) => r.body.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(results.every((r) => r.headers.get('x-credits-charged') === '1')).toBe(true);
    // Both live proxies carried traffic, and every request went through one of them.
    expect(counts[0]).toBeGreaterThanOrEqual(2);
    expect(counts[1]).toBeGreaterThanOrEqual(2);
    expect(counts[0] + counts[1]).toBe(6);
  });

  it('refuses a country with no configured pool instead of connecting directly', async () => {
    // Nobody approved DE for this client, so the gateway stops it first (country-proxies e2e covers approved countries).
    expect((await http(env.url, '/v1/sync/scrape', { token, json: { url: `${site.url}/page`, use_proxy: 'DE' } })).status).toBe(403);
  });
});
