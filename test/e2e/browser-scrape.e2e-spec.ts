import { type BrowserFixtureSite, startBrowserFixtureSite, startCanary } from '../support/browser-fixture-site';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { expectUsageHeaders, http } from './support/http';
import { startLocalProxies } from './support/local-proxies';
import { runtimesUnderTest } from './support/runtimes';
import { chromiumProcessesBelow } from '../support/chromium-processes';

/** This process's Chromium main processes (`browser`) or page renderers (`renderer`) of one binary. */
function chromiumOf(binary: 'chromium' | 'chromium-headless-shell', which: 'browser' | 'renderer'): number[] {
  return chromiumProcessesBelow()
    .filter((p) => p.exe.endsWith(`/${binary}`) && (which === 'browser' ? p.main : p.renderer))
    .map((p) => p.pid);
}

/**
 * POST /v1/sync/scrape with browser=true, end to end over HTTP against local fixture pages, in both
 * runtimes: rendering, both browser kinds, every action type (select and while included), evaluate,
 * screenshots, network capture, headers/cookies/language/window size, SSRF inside the browser,
 * hung pages, and 5 credits agreeing between X-Credits-Charged, guidance and the ledger.
 */
describe.each(runtimesUnderTest('browser'))('POST /v1/sync/scrape browser=true — $name', (runtime) => {
  let site: BrowserFixtureSite;
  let canary: Awaited<ReturnType<typeof startCanary>>;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    site = await startBrowserFixtureSite();
    canary = await startCanary();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      BROWSER_NAVIGATION_TIMEOUT_MS: '4000',
    });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await canary?.close();
    await site?.close();
  });

  const scrape = (body: Record<string, unknown>) => http(env.url, '/v1/sync/scrape', { token, json: { browser: true, ...body } });
  const quotaUsed = async () => Number((await http(env.url, '/v1/plans', { token })).headers.get('x-quota-used'));

  it('renders JavaScript content in both kinds, charges 5 credits, and reports every timing', async () => {
    for (const browser_type of ['light', 'heavy']) {
      const before = await quotaUsed();
      const res = await scrape({
        url: `${site.url}/spa`,
        browser_type,
        format: 'markdown',
        extract: { items: { selector: 'li.item', multiple: true }, title: '//h1' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        statusCode: 200,
        html: null,
        screenshot: null,
        potentiallyBlockedByCaptcha: false,
        action_error: null,
      });
      expect(res.body.markdown).toContain('# Rendered by JS');
      expect(res.body.extracted_data).toEqual({ items: ['alpha', 'beta', 'gamma'], title: 'Rendered by JS' });
      expect(Object.keys(res.body.timings).sort()).toEqual([
        'actions_ms',
        'browser_launch_ms',
        'extraction_ms',
        'navigation_ms',
        'proxy_ms',
        'queue_wait_ms',
        'total_ms',
      ]);
      expect(res.body.guidance).toMatchObject({ success: true, credits_charged: 5 });
      expect(res.headers.get('x-credits-charged')).toBe('5');
      expect(Number(res.headers.get('x-quota-used'))).toBe(before + 5);
      expectUsageHeaders(res);
    }
  });

  it('fills a form with select, input, key-press and click, and runs evaluate with per-entry errors', async () => {
    const res = await scrape({
      url: `${site.url}/form`,
      browser_type: 'light',
      actions: [
        { type: 'select', selector: 'css:#size', value: 'L' },
        { type: 'input', selector: '#name', text: 'tea' },
        { type: 'click', selector: '//button[@id="go"]' },
        { type: 'evaluate', script: 'document.getElementById("out").textContent' },
        {
          type: 'evaluate',
          script: 'async () => { await new Promise((r) => setTimeout(r, 20)); return { size: document.getElementById("size").value }; }',
        },
        { type: 'evaluate', script: 'missingFunction()' },
        { type: 'evaluate', script: 'new Promise(() => {})', timeout: 300 },
        { type: 'key-press', key: 'Enter' },
        { type: 'click', selector: '#absent', optional: true },
        { type: 'wait-for-selector', selector: '#out', time: 1000 },
        { type: 'wait-for-timeout', time: 50 },
      ],
      extract: { out: '#out' },
    });
    expect(res.body.action_error).toBeNull();
    expect(res.body.evaluate_results).toEqual([
      { action: 'actions[3]', value: 'size=L name=tea', error: null },
      { action: 'actions[4]', value: { size: 'L' }, error: null },
      { action: 'actions[5]', value: null, error: expect.stringContaining('missingFunction') },
      { action: 'actions[6]', value: null, error: expect.stringContaining('300 ms') },
    ]);
    // The click wrote #out; Enter then went to whatever had the focus (the button: no change, or the input).
    expect(res.body.extracted_data.out).toMatch(/^size=L name=tea$|^enter:tea$/);
    expect(res.body.guidance.success).toBe(true);
  });

  it('stops at a failing action with its index path, keeps the page, and says why in guidance', async () => {
    const res = await scrape({
      url: `${site.url}/form`,
      browser_type: 'light',
      actions: [
        { type: 'input', selector: '#name', text: 'x' },
        { type: 'select', selector: '#size', value: 'XXL' },
        { type: 'click', selector: '#go' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.action_error).toEqual({ action: 'actions[1]', type: 'select', message: '#size has no option with value "XXL"' });
    expect(res.body.html).toContain('id="size"');
    expect(res.body.guidance).toMatchObject({ success: false, error_type: 'action_failed', credits_charged: 5 });
    expect(res.body.guidance.next_steps[0]).toContain('actions[1] (select)');
    const missing = await scrape({
      url: `${site.url}/form`,
      browser_type: 'light',
      actions: [
        {
          type: 'while',
          condition: { script: 'true' },
          max_iterations: 2,
          actions: [{ type: 'wait-for-selector', selector: '#nope', time: 100 }],
        },
      ],
    });
    expect(missing.body.action_error).toMatchObject({ action: 'actions[0].actions[0]', type: 'wait-for-selector' });
  });

  it('drives a paginated list with a while loop that collects every page', async () => {
    const res = await scrape({
      url: `${site.url}/list?page=1`,
      browser_type: 'light',
      actions: [
        {
          type: 'while',
          condition: { selector: 'css:a.next', state: 'visible' },
          max_iterations: 10,
          actions: [
            { type: 'collect', extract: { items: { selector: 'li.item', multiple: true } } },
            { type: 'click', selector: 'a.next', wait_for_navigation: true },
          ],
        },
        { type: 'collect', extract: { items: { selector: 'li.item', multiple: true }, last: 'h1' } },
      ],
    });
    expect(res.body.action_error).toBeNull();
    expect(res.body.extracted_data.items).toEqual(Array.from({ length: 15 }, (_, i) => `Item ${i + 1}`));
    expect(res.body.extracted_data.last).toBe('Page 3');
    const more = await scrape({
      url: `${site.url}/more`,
      browser_type: 'light',
      actions: [{ type: 'while', condition: { selector: '#more', state: 'enabled' }, actions: [{ type: 'click', selector: '#more' }] }],
      extract: { rows: { selector: 'li.item', multiple: true } },
    });
    expect(more.body.extracted_data.rows).toEqual(['Row 1', 'Row 2', 'Row 3', 'Row 4']);
  });

  it('rejects bad actions with 422 at their location before any browser work', async () => {
    const bad = await scrape({
      url: `${site.url}/form`,
      actions: [{ type: 'click' }, { type: 'while', condition: { selector: 'a', script: 'x' }, actions: [] }],
    });
    expect(bad.status).toBe(422);
    const locs = bad.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.actions.0.selector', 'body.actions.1.condition']));
    const selector = await scrape({ url: `${site.url}/form`, actions: [{ type: 'click', selector: 'xpath:((' }] });
    expect(selector.status).toBe(422);
    expect(selector.headers.get('x-credits-charged')).toBe('0');
    const capture = await scrape({ url: `${site.url}/form`, network_capture: { listen_after_load_ms: 10001 } });
    expect(capture.status).toBe(422);
  });

  it('takes a full-page PNG screenshot', async () => {
    const res = await scrape({ url: `${site.url}/long`, browser_type: 'light', screenshot: true });
    const png = Buffer.from(res.body.screenshot, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // Full page: taller than the 1080 px viewport (the page is 3000 px).
    expect(png.readUInt32BE(20)).toBeGreaterThanOrEqual(3000);
    expect(png.readUInt32BE(16)).toBe(1920);
  });

  it('clips a page taller than a screenshot may be to 16,384 px, says so, and keeps the rest of the result', async () => {
    const res = await scrape({
      url: `${site.url}/very-long`,
      browser_type: 'heavy',
      window_size: 'desktop',
      screenshot: true,
      actions: [{ type: 'evaluate', script: 'document.title' }],
    });
    expect(res.body.statusCode).toBe(200);
    const png = Buffer.from(res.body.screenshot, 'base64');
    expect(png.readUInt32BE(20)).toBe(16_384);
    expect(res.body.evaluate_results).toEqual([expect.objectContaining({ value: 'Very long', error: null })]);
    expect(res.body.guidance.success).toBe(true);
    // (Heavy is a windowed browser with a scrollbar: the page is the window's width less the bar's.)
    expect(res.body.guidance.next_steps.join(' ')).toMatch(/first (\d+)×16384 CSS pixels of \1×400\d\d/);
  });

  it('captures xhr, fetch, image, script, stylesheet and websocket requests with bodies, filtered by type', async () => {
    const all = await scrape({
      url: `${site.url}/traffic`,
      browser_type: 'light',
      screenshot: true,
      network_capture: { resource_types: null, listen_after_load_ms: 300 },
    });
    const types = new Set(all.body.network_requests.map((r: { resource_type: string }) => r.resource_type));
    for (const t of ['document', 'xhr', 'fetch', 'image', 'script', 'stylesheet', 'websocket']) expect(types).toContain(t);
    const xhr = all.body.network_requests.find((r: { url: string }) => r.url.endsWith('via=xhr'));
    expect(xhr).toMatchObject({
      method: 'GET',
      resource_type: 'xhr',
      status: 200,
      mime_type: 'application/json',
      body: JSON.stringify({ items: ['alpha', 'beta', 'gamma'] }),
      body_encoding: 'utf8',
      error: null,
    });
    expect(xhr.size).toBeGreaterThan(0);
    expect(typeof xhr.duration).toBe('number');
    expect(xhr.response_headers['content-type']).toBe('application/json');
    expect(Object.keys(xhr.request_headers).length).toBeGreaterThan(0);
    const ws = all.body.network_requests.find((r: { resource_type: string }) => r.resource_type === 'websocket');
    expect(ws.status).toBe(101);
    const image = all.body.network_requests.find((r: { resource_type: string }) => r.resource_type === 'image');
    expect(image.body).toBeNull();
    // light without a screenshot skips images, fonts and media: the image request fails on purpose.
    const lean = await scrape({ url: `${site.url}/traffic`, browser_type: 'light', network_capture: { resource_types: ['image'] } });
    expect(lean.body.network_requests).toEqual([
      expect.objectContaining({ resource_type: 'image', status: 0, error: 'blocked:inspector' }),
    ]);
    const onlyFetch = await scrape({ url: `${site.url}/traffic`, browser_type: 'light', network_capture: { resource_types: ['fetch'] } });
    expect(onlyFetch.body.network_requests.map((r: { resource_type: string }) => r.resource_type)).toEqual(['fetch']);
  });

  it('sends headers and cookies before loading, and matches language and window size', async () => {
    const echo = await scrape({
      url: `${site.url}/echo`,
      browser_type: 'heavy',
      headers: { 'X-Trace': 't1' },
      cookies: { session: 'abc' },
      language: 'de-DE',
    });
    const sent = JSON.parse(echo.body.html.replace(/^[\s\S]*?<pre[^>]*>|<\/pre>[\s\S]*$/g, '')).headers;
    expect(sent).toMatchObject({ 'x-trace': 't1', cookie: 'session=abc' });
    expect(sent['accept-language']).toMatch(/^de-DE/);
    const desktop = await scrape({
      url: `${site.url}/checks`,
      browser_type: 'heavy',
      language: 'de-DE',
      actions: [{ type: 'wait-for-selector', selector: '//div[@id="result" and text()!="pending"]', time: 5000 }],
      extract: { result: '#result' },
    });
    const d = JSON.parse(desktop.body.extracted_data.result);
    expect(d).toMatchObject({
      languages: ['de-DE', 'de'],
      language: 'de-DE',
      timezone: 'Europe/Berlin',
      screen: [1920, 1080],
      // A heavy desktop page is a window the size of the screen; the page gets what the browser's
      // own frame leaves of it, as in any windowed browser.
      outer: [1920, 1080],
      touch: 0,
      uaPlatformConsistent: true,
    });
    expect(d.viewport[0]).toBe(1920);
    expect(d.viewport[1]).toBeGreaterThan(800);
    expect(d.viewport[1]).toBeLessThan(1080);
    const mobile = await scrape({
      url: `${site.url}/checks`,
      browser_type: 'heavy',
      window_size: 'mobile',
      actions: [{ type: 'wait-for-selector', selector: '//div[@id="result" and text()!="pending"]', time: 5000 }],
      extract: { result: '#result' },
    });
    const m = JSON.parse(mobile.body.extracted_data.result);
    expect(m.userAgent).toMatch(/Android.*Mobile/);
    expect(m).toMatchObject({ touch: 5, clientHintsPlatform: 'Android', uaPlatformConsistent: true });
    expect(m.screen[0]).toBeLessThan(500);
  });

  it('passes the headless battery in heavy mode with a fingerprint that agrees with itself', async () => {
    const battery = async (type: string) => {
      const res = await scrape({
        url: `${site.url}/checks`,
        browser_type: type,
        actions: [{ type: 'wait-for-selector', selector: '//div[@id="result" and text()!="pending"]', time: 5000 }],
        extract: { result: '#result' },
      });
      return JSON.parse(res.body.extracted_data.result);
    };
    const heavy = await battery('heavy');
    expect(heavy).toMatchObject({
      webdriver: false,
      headlessUa: false,
      chromeObject: true,
      chromeApis: true,
      permissionsConsistent: true,
      uaPlatformConsistent: true,
      // The machine's own system (decision 0021): these tests run on Linux.
      clientHintsPlatform: 'Linux',
      platform: expect.stringMatching(/^Linux (x86_64|aarch64)$/),
    });
    expect(heavy.plugins).toBeGreaterThan(0);
    expect(heavy.mimeTypes).toBeGreaterThan(0);
    // The machine's own GL driver, not a spoofed GPU (decision 0043): a GPU, or Mesa's llvmpipe on a
    // machine without one (CI installs Mesa), never SwiftShader, which every suite flags.
    expect(heavy.webglVendor).toMatch(/^Google Inc\. \(/);
    expect(heavy.webglRenderer).toMatch(/^ANGLE \(/);
    expect(heavy.webglRenderer).not.toMatch(/SwiftShader/i);
    expect(heavy.userAgent).toMatch(/\(X11; Linux (x86_64|aarch64)\).*Chrome\/\d+\.0\.0\.0 Safari/);
    // light is the plain browser: the same user agent, none of the script-level patches.
    const light = await battery('light');
    expect(light.headlessUa).toBe(false);
    expect(light.webdriver || light.plugins === 0 || !light.chromeApis).toBe(true);
  });

  it('says the same in every realm in heavy mode: window, frame, dedicated and shared workers agree, and the functions fingerprinters read are native', async () => {
    const realms = async (type: string) => {
      const res = await scrape({
        url: `${site.url}/realms`,
        browser_type: type,
        language: 'de-DE',
        actions: [{ type: 'wait-for-selector', selector: '//div[@id="result" and text()!="pending"]', time: 8000 }],
        extract: { result: '#result' },
      });
      return JSON.parse(res.body.extracted_data.result) as Record<string, Record<string, unknown>>;
    };
    const heavy = await realms('heavy');
    const { window: top, ...others } = heavy;
    expect(Object.keys(others)).toEqual(['iframe', 'blobWorker', 'urlWorker', 'sharedWorker']);
    expect(top).toMatchObject({ platform: expect.stringMatching(/^Linux/), languages: ['de-DE', 'de'], webdriver: false, hints: 'Linux' });
    expect(top.renderer).not.toMatch(/SwiftShader/);
    for (const [realm, reading] of Object.entries(others)) {
      // (navigator.webdriver exists in windows only: Chromium's workers have none.)
      expect({ realm, webdriver: reading.webdriver === true }).toEqual({ realm, webdriver: false });
      for (const key of [
        'userAgent',
        'platform',
        'language',
        'languages',
        'hardwareConcurrency',
        'deviceMemory',
        'hints',
        'vendor',
        'renderer',
      ]) {
        expect({ realm, key, value: reading[key] }).toEqual({ realm, key, value: top[key] });
      }
    }
    for (const [realm, reading] of Object.entries(heavy)) {
      expect({ realm, native: reading.native, wrongReceiver: reading.wrongReceiver }).toEqual({
        realm,
        native: {
          getParameter: 'function getParameter() { [native code] }',
          toString: 'function toString() { [native code] }',
          name: 'getParameter',
          length: 1,
          hasPrototype: false,
        },
        wrongReceiver: 'TypeError: Illegal invocation',
      });
    }
    // light tells no lies: its GPU is the software renderer it has, in every realm alike.
    const light = await realms('light');
    expect(light.window.renderer).toMatch(/SwiftShader/);
    expect(light.blobWorker.renderer).toBe(light.window.renderer);
    expect(light.blobWorker.platform).toBe(light.window.platform);
  });

  it('is judged human by BotD in heavy mode; light is the plain (detectable) browser', async () => {
    const botd = (type: string) =>
      scrape({
        url: `${site.url}/botd`,
        browser_type: type,
        actions: [{ type: 'wait-for-selector', selector: '//div[@id="result" and text()!="pending"]', time: 8000 }],
        extract: { result: '#result' },
      });
    expect(JSON.parse((await botd('heavy')).body.extracted_data.result)).toEqual({ bot: false });
    expect(JSON.parse((await botd('light')).body.extracted_data.result)).toMatchObject({ bot: true });
  });

  it('keeps every request of the page behind the SSRF guard: the canary is never reached', async () => {
    const before = canary.connections();
    for (const type of ['light', 'heavy']) {
      const res = await scrape({
        url: `${site.url}/canary-probe?target=${encodeURIComponent(canary.url)}`,
        browser_type: type,
        network_capture: { resource_types: null, listen_after_load_ms: 500 },
      });
      expect(res.body.statusCode).toBe(200);
      const towardsCanary = res.body.network_requests.filter((r: { url: string }) => r.url.includes(`:${canary.port}`));
      expect(towardsCanary.length).toBeGreaterThan(3);
      const probe = await scrape({
        url: `${site.url}/canary-probe?target=${encodeURIComponent(`http://localhost:${canary.port}`)}`,
        browser_type: type,
      });
      expect(probe.body.statusCode).toBe(200);
    }
    expect(canary.connections()).toBe(before);
    // WebRTC may not send UDP around the proxy (STUN to the canary's UDP port).
    expect(canary.datagrams()).toBe(0);
    // A redirect from an allowed page to a refused one: target_blocked, nothing charged.
    const redirect = await scrape({ url: `${site.url}/redirect-to?url=${encodeURIComponent(`${canary.url}/x`)}`, browser_type: 'light' });
    expect(redirect.body.guidance).toMatchObject({ success: false, error_type: 'target_blocked', credits_charged: 0 });
    expect(redirect.headers.get('x-credits-charged')).toBe('0');
    expect(canary.connections()).toBe(before);
    // The first hop itself is refused up front with the guard's 422.
    const direct = await scrape({ url: `${canary.url}/` });
    expect(direct.status).toBe(422);
    expect(direct.body).toMatchObject({ error_code: 'target_blocked', reason: 'private_ip' });
  });

  it('fails a hung page with timeout guidance, uncharged, and serves the next request normally', async () => {
    const before = await quotaUsed();
    const hung = await scrape({ url: `${site.url}/hang`, browser_type: 'light' });
    expect(hung.status).toBe(200);
    expect(hung.body).toMatchObject({ statusCode: 0, html: null });
    expect(hung.body.guidance).toMatchObject({ success: false, error_type: 'timeout', credits_charged: 0 });
    expect(hung.body.timings.navigation_ms).toBeGreaterThanOrEqual(3900);
    expect(hung.headers.get('x-credits-charged')).toBe('0');
    expect(await quotaUsed()).toBe(before);
    const next = await scrape({ url: `${site.url}/spa`, browser_type: 'light' });
    expect(next.body.statusCode).toBe(200);
  });

  it('reports a redirect loop as too_many_redirects in every mode, uncharged, as simple mode does', async () => {
    const before = await quotaUsed();
    for (const mode of [{ browser: true, browser_type: 'light' }, { browser: true, browser_type: 'heavy' }, { browser: false }]) {
      const looped = await scrape({ url: `${site.url}/loop`, ...mode });
      expect({ mode, status: looped.status, guidance: looped.body.guidance }).toMatchObject({
        mode,
        status: 200,
        guidance: { success: false, error_type: 'too_many_redirects', credits_charged: 0 },
      });
    }
    expect(await quotaUsed()).toBe(before);
  });

  it('fails requests on a browser that crashes with browser_error guidance, uncharged, and replaces it', async () => {
    for (const victim of ['browser', 'renderer'] as const) {
      const before = await quotaUsed();
      const pending = scrape({ url: `${site.url}/slow-load?ms=4000`, browser_type: 'heavy', screenshot: true });
      // Kill it while the page waits for its slow image: the whole browser, then only the page's renderer.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const killed = chromiumOf('chromium', victim);
      expect(killed.length).toBeGreaterThan(0);
      for (const pid of killed) process.kill(pid, 'SIGKILL');
      const res = await pending;
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ statusCode: 0, html: null });
      expect(res.body.guidance).toMatchObject({ success: false, error_type: 'browser_error', credits_charged: 0 });
      expect(res.body.guidance.next_steps[0]).toMatch(/crashed/);
      expect(res.headers.get('x-credits-charged')).toBe('0');
      expect(await quotaUsed()).toBe(before);
      const next = await scrape({ url: `${site.url}/spa`, browser_type: 'heavy' });
      // With the guidance, so a failure says why the replacement did not serve.
      expect({ victim, statusCode: next.body.statusCode, guidance: next.body.guidance }).toMatchObject({ victim, statusCode: 200 });
    }
  });

  it('flags a CAPTCHA wall rendered in the browser', async () => {
    const res = await scrape({ url: `${site.url}/captcha`, browser_type: 'light' });
    expect(res.body).toMatchObject({ potentiallyBlockedByCaptcha: true });
    expect(res.body.guidance).toMatchObject({ success: false, error_type: 'captcha', credits_charged: 5 });
  });
});

describe.each(runtimesUnderTest('browser-proxied'))('browser scrapes through PROXY_POOL with proxy auth — $name', (runtime) => {
  let site: BrowserFixtureSite;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;
  let proxies: Awaited<ReturnType<typeof startLocalProxies>>;
  const seen: Array<{ proxy: number; host: string; user: string }> = [];

  beforeAll(async () => {
    site = await startBrowserFixtureSite();
    // Paid proxies: wrong or missing credentials get 407.
    proxies = await startLocalProxies(2, (i, { username, password, hostname, port }) => {
      if (username !== `user${i}` || password !== 'secret') return { requestAuthentication: true };
      seen.push({ proxy: i, host: `${hostname}:${port}`, user: username });
      return {};
    });
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    const pool = { any: proxies.ports.map((port, i) => `http://user${i}:secret@127.0.0.1:${port}`) };
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port}`, PROXY_POOL: JSON.stringify(pool) });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await proxies?.close();
    await site?.close();
  });

  it('sends every request of each page through the next proxy of the rotation, with its credentials', async () => {
    const results = [];
    for (const browser_type of ['light', 'heavy', 'light', 'heavy']) {
      results.push(
        await http(env.url, '/v1/sync/scrape', {
          token,
          json: { url: `${site.url}/traffic`, browser: true, browser_type, screenshot: true },
        }),
      );
    }
    expect(results.map((r) => r.body.statusCode)).toEqual([200, 200, 200, 200]);
    expect(results.every((r) => r.headers.get('x-credits-charged') === '5')).toBe(true);
    // Both proxies carried pages, and the subresources (script, css, xhr, fetch, image, websocket) went the same way.
    expect(new Set(seen.map((s) => s.proxy))).toEqual(new Set([0, 1]));
    expect(seen.length).toBeGreaterThanOrEqual(4 * 7);
    expect(seen.every((s) => s.host === `127.0.0.1:${site.port}`)).toBe(true);
  });
});
