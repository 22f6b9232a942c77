import { request } from 'node:http';
import type { HTTPRequest } from 'puppeteer-core';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { articleHtml, type ChangingSite, startChangingSite } from '../support/changing-site';
import { ConsoleBrowser } from './support/console-browser';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

/**
 * The web console (issue 21) in headless Chromium against the platform and a local fixture site:
 * sign in, simple and browser scrapes in the playground, field messages from the API, a collection
 * and its run to completion, a job's result, usage, viability, and an administrator approving a
 * country request. Every page is checked with axe-core (no serious or critical violation) at
 * desktop and phone widths, in light and dark; no console error, failed request or request to a
 * host other than the gateway is allowed, except the error answers a test provokes by name.
 */
describe.each(runtimesUnderTest('console'))('web console in Chromium — $name', (runtime) => {
  let site: FixtureSite;
  let changing: ChangingSite;
  let env: InProcessPlatform;
  let token: string;
  let console_: ConsoleBrowser;
  let cleanup: () => Promise<void> = async () => undefined;
  const clientId = 'console-user';
  const screenshot = (name: string) => console_.screenshot(`${runtime.mode}-${name}`);

  beforeAll(async () => {
    site = await startFixtureSite();
    changing = await startChangingSite();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${changing.port}`,
      BROWSER_WARM: 'false',
    });
    token = (
      await http(env.url, '/v1/admin/clients', {
        token: env.adminToken,
        json: { plan: 'starter', client_id: clientId, rate_limit_per_minute: 600 },
      })
    ).body.token;
    console_ = await ConsoleBrowser.open(env.url);
  });
  afterAll(async () => {
    await console_?.close();
    await env?.stop();
    await cleanup();
    await site?.close();
    await changing?.close();
  });
  afterEach(() => {
    // What the console promises never happens, checked after every test (and cleared, so one
    // test's incident is reported once).
    const incidents = structuredClone(console_.incidents);
    console_.clearIncidents();
    expect(incidents).toEqual({ foreignRequests: [], failedRequests: [], errorAnswers: [], consoleErrors: [] });
  });

  async function expectAccessible(): Promise<void> {
    expect(await console_.seriousAccessibilityViolations()).toEqual([]);
  }

  it('signs in with a token kept in sessionStorage only, and shows who it is', async () => {
    await console_.signIn(token);
    expect(await console_.page.$eval('[data-testid=signed-in-as]', (el) => el.textContent)).toBe(clientId);
    const stored = await console_.page.evaluate(() => ({
      session: Object.values(sessionStorage),
      local: Object.values(localStorage),
      cookie: document.cookie,
      url: location.href,
    }));
    expect(stored.session).toContain(token);
    expect(JSON.stringify(stored.local)).not.toContain(token);
    expect(stored.cookie).toBe('');
    expect(stored.url).not.toContain(token);
    // Not an administrator: no admin page in the navigation.
    expect(await console_.page.$$eval('nav a', (links) => links.map((a) => a.textContent))).not.toContain('Admin');
    await expectAccessible();
    await screenshot('01-sign-in-playground');
  });

  it('shows the API’s validation messages at the fields they are about', async () => {
    await console_.goto('playground');
    // A target the API refuses (422 target_blocked): the message goes to the URL field.
    await console_.page.type('#url', 'not a url');
    await console_.clickText('Scrape');
    await console_.page.waitForSelector('.field-invalid #url');
    expect(await console_.page.$eval('#url-error', (el) => el.textContent ?? '')).toContain('not a valid absolute URL');
    console_.expectAnswered(422, 'POST', '/v1/sync/scrape');
    // Schema problems (422): each at its field, an action's in the action's row.
    await console_.page.click('#url', { count: 3 });
    await console_.page.type('#url', `${site.url}/page`);
    await console_.page.click('#browser');
    await console_.clickText('Add action');
    await console_.clickText('Scrape');
    await console_.page.waitForSelector('li.action .field-error');
    expect(await console_.page.$eval('li.action .field-error', (el) => el.textContent ?? '')).toMatch(
      /selector.*longer than or equal to 1/,
    );
    expect(await console_.page.$$('.field-invalid #url')).toHaveLength(0);
    console_.expectAnswered(422, 'POST', '/v1/sync/scrape');
    await expectAccessible();
    await screenshot('01b-validation-messages');
  });

  it('runs a simple scrape: markdown rendered and raw, the page rendered inert, credits charged, request as curl', async () => {
    await console_.goto('playground/simple');
    await console_.page.waitForSelector('#url');
    await console_.page.type('#url', `${site.url}/news`);
    await console_.page.select('#format', 'markdown');
    await console_.clickText('Scrape');
    await console_.page.waitForSelector('[data-testid=credits-charged]', { timeout: 60_000 });
    expect(await console_.page.$eval('[data-testid=credits-charged]', (el) => el.textContent)).toBe('1 credit charged');
    // The markdown, rendered in a sandboxed frame with nothing that could load from elsewhere.
    await console_.clickText('Markdown', '[role=tab]');
    const frame = await console_.page.$eval('iframe.page-frame', (el) => ({
      sandbox: el.getAttribute('sandbox'),
      srcdoc: el.getAttribute('srcdoc') ?? '',
    }));
    expect(frame.sandbox).toBe('');
    expect(frame.srcdoc).toContain('Green tea, brewed right');
    expect(frame.srcdoc).not.toMatch(/<script|src="\/|href=/i);
    await console_.clickText('Markdown (raw)', '[role=tab]');
    await console_.waitForText('# Green tea, brewed right', '[role=tabpanel]');
    await console_.clickText('Guidance', '[role=tab]');
    await console_.waitForText('Credits charged: 1', '[role=tabpanel]');
    // Request as code: the token never written in, the request's URL is.
    await console_.page.click('details.snippets summary');
    await console_.clickText('curl', '[role=tab]');
    const curl = await console_.page.$eval('details.snippets [role=tabpanel] pre', (el) => el.textContent ?? '');
    expect(curl).toContain(`${site.url}/news`);
    expect(curl).toContain('$SCRAPING_API_TOKEN');
    expect(curl).not.toContain(token);
    await expectAccessible();
    await screenshot('02-playground-simple');
  });

  it('runs a browser scrape with a screenshot, an action and an extract row, sending exactly what the form shows', async () => {
    await console_.goto('playground/browser');
    await console_.page.waitForSelector('#url');
    await console_.page.type('#url', `${site.url}/page`);
    await console_.page.click('#browser');
    await console_.page.click('#screenshot');
    // Left as shown: browser type light; images unchecked (the API's default is true, so it must be sent).
    await console_.page.click('#images');
    const sent: Array<Record<string, unknown>> = [];
    const onRequest = (request: HTTPRequest) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/sync/scrape')
        sent.push(JSON.parse(request.postData() ?? '{}'));
    };
    console_.page.on('request', onRequest);
    await console_.clickText('Add action');
    await console_.page.select('#action-0-type', 'wait-for-selector');
    await console_.page.type('li.action input', 'h1');
    await console_.clickText('Add name');
    await console_.page.type('#extract-0-name', 'title');
    await console_.page.type('#extract-0-value', 'h1');
    const onScreen = await console_.page.evaluate(() => ({
      format: (document.querySelector('#format') as HTMLSelectElement).value,
      browserType: (document.querySelector('#browser-type') as HTMLSelectElement).value,
      images: (document.querySelector('#images') as HTMLInputElement).checked,
      mainContent: (document.querySelector('#only-main') as HTMLInputElement).checked,
    }));
    await console_.clickText('Scrape');
    await console_.page.waitForSelector('[data-testid=credits-charged]', { timeout: 90_000 });
    console_.page.off('request', onRequest);
    expect(onScreen).toEqual({ format: 'markdown', browserType: 'light', images: false, mainContent: false });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      url: `${site.url}/page`,
      format: 'markdown',
      browser: true,
      browser_type: 'light',
      include_images: false,
      screenshot: true,
    });
    // A field left out is one the form shows at the API's default.
    expect(sent[0].only_main_content ?? false).toBe(onScreen.mainContent);
    expect(await console_.page.$eval('[data-testid=credits-charged]', (el) => el.textContent)).toBe('5 credits charged');
    await console_.clickText('Screenshot', '[role=tab]');
    const shot = await console_.page.$eval('img.screenshot', (img) => ({
      src: img.getAttribute('src') ?? '',
      width: (img as HTMLImageElement).naturalWidth,
    }));
    expect(shot.src).toMatch(/^data:image\/png;base64,/);
    expect(shot.width).toBeGreaterThan(100);
    await console_.clickText('Extracted', '[role=tab]');
    await console_.waitForText('"title": "Fixture article"', '[role=tabpanel]');
    await console_.clickText('Timings', '[role=tab]');
    await console_.waitForText('Navigation', '[role=tabpanel]');
    await expectAccessible();
    await screenshot('03-playground-browser');
  });

  it('creates a collection from pasted URLs, showing what was refused, and watches a run complete', async () => {
    await console_.goto('collections');
    await console_.page.waitForSelector('#collection-name');
    await console_.page.type('#collection-name', 'console run');
    // JSON: bare URLs take the shared options; the object is a request of its own (an invalid one).
    const list = JSON.stringify([
      `${site.url}/page`,
      `${site.url}/news`,
      `${site.url}/status/404`,
      `${site.url}/page`,
      'http://10.0.0.1/admin',
      { url: `${site.url}/page?pdf`, format: 'pdf' },
    ]);
    await console_.page.$eval(
      '#collection-list',
      (el, text) => {
        const area = el as HTMLTextAreaElement;
        Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(area, text);
        area.dispatchEvent(new Event('input', { bubbles: true }));
      },
      list,
    );
    await console_.waitForText('6 requests read.');
    await console_.clickText('Create collection');
    await console_.waitForText('duplicates skipped');
    const report = await console_.page.$eval('.notice-ok', (el) => el.textContent ?? '');
    expect(report).toMatch(/1 blocked/);
    expect(report).toMatch(/1 invalid/);
    expect(report).toMatch(/1 duplicates skipped/);
    await console_.clickText('Open console run', 'a');
    await console_.clickText('Start a run');
    await console_.page.waitForSelector('[data-testid=run-status]');
    await console_.page.waitForFunction(() => document.querySelector('[data-testid=run-status]')?.textContent === 'completed', {
      timeout: 90_000,
    });
    expect(await console_.page.$eval('[data-testid=count-success]', (el) => el.textContent)).toBe('2');
    // The 404 answered, was charged and is `completed`; its outcome, and the run's counter, say failed.
    expect(await console_.page.$eval('[data-testid=count-failed]', (el) => el.textContent)).toBe('1');
    expect(await console_.page.$eval('[role=progressbar]', (el) => el.getAttribute('aria-valuenow'))).toBe('3');
    await console_.waitForText(`${site.url}/news`, 'table');
    await console_.press(`button[aria-label="View the result of ${site.url}/news"]`);
    await console_.page.waitForSelector('#job-result-title', { timeout: 60_000 });
    await console_.clickText('Markdown (raw)', '[role=tab]');
    await console_.waitForText('Green tea, brewed right', '[role=tabpanel]');
    await expectAccessible();
    await screenshot('04-run-completed');
  });

  it('shows usage: credits against the quota, by mode, top domains and the headers explained', async () => {
    await console_.goto('usage');
    await console_.page.waitForSelector('[data-testid=credits-used]');
    // 1 (simple) + 5 (browser) + 3 (the run's three jobs, the 404 too); the refused 422 cost nothing.
    expect(await console_.page.$eval('[data-testid=credits-used]', (el) => el.textContent)).toBe('9');
    // "Failed" here is the run's failed: the 404 the run page counted (issue 36: it said "No failed jobs").
    await console_.page.waitForSelector('[data-testid=failed-jobs]');
    expect(await console_.page.$eval('[data-testid=failed-jobs]', (el) => el.textContent)).toBe('1 job failed or timed out.');
    await console_.waitForText('failed: HTTP 404', 'table');
    await console_.waitForText('127.0.0.1', 'table');
    await console_.waitForText('X-Quota-Remaining');
    await expectAccessible();
    await screenshot('05-usage');
  });

  it('runs a viability test and opens its suggested request in the playground', async () => {
    await console_.goto('viability');
    await console_.page.waitForSelector('#viability-urls');
    await console_.page.type('#viability-urls', `${site.url}/page`);
    await console_.page.select('#viability-depth', 'quick');
    await console_.clickText('Test');
    await console_.waitForText('Recommended:', 'article', 120_000);
    await expectAccessible();
    await screenshot('06-viability');
    await console_.clickText('Open the suggested request in the playground');
    await console_.page.waitForFunction(
      (url) => (document.querySelector<HTMLInputElement>('#url')?.value ?? '') === url,
      {},
      `${site.url}/page`,
    );
  });

  it('crawls a site: plans it, crawls it with live progress, and opens a page of it', async () => {
    const fill = async () => {
      await console_.goto('crawl');
      await console_.page.waitForSelector('#crawl-url');
      await console_.page.type('#crawl-url', `${site.url}/page`);
      await console_.page.click('#crawl-max-depth', { clickCount: 3 });
      await console_.page.type('#crawl-max-depth', '0');
      await console_.page.select('#crawl-sitemap', 'skip');
    };
    await fill();
    await console_.press('#crawl-dry-run');
    await console_.clickText('Plan', 'button.primary');
    await console_.waitForText('Forecast', 'caption', 120_000);
    await expectAccessible();
    await screenshot('06b-crawl-plan');
    await fill();
    await console_.clickText('Crawl', 'button.primary');
    await console_.waitForText('completed', '.badge', 120_000);
    await console_.waitForText(`${site.url}/page`, 'a', 60_000);
    await expectAccessible();
    await console_.clickText(`${site.url}/page`, 'a');
    await console_.page.waitForSelector('[id^="crawl-result"]');
    await screenshot('06c-crawl');
  });

  it('watches a page: a monitor from the form, its ticks, and a change side by side', async () => {
    changing.pages.set('prices', { html: articleHtml('Prices', 'ten euros') });
    await console_.goto('monitors');
    await console_.page.waitForSelector('#monitor-urls');
    await console_.page.type('#monitor-urls', `${changing.url}/prices`);
    await console_.page.type('#monitor-patterns', '\\d{2}:\\d{2}');
    await console_.clickText('Watch', 'button.primary');
    // The first tick's page, new: only then does the page change.
    await console_.waitForText('new', 'td', 60_000);
    changing.pages.set('prices', { html: articleHtml('Prices', 'twelve euros') });
    await console_.clickText('Tick now', 'button');
    await console_.waitForText('changed', 'td', 60_000);
    await expectAccessible();
    const links = await console_.page.$$eval('a', (anchors) =>
      anchors.map((a) => a.getAttribute('href') ?? '').filter((href) => /^#\/monitors\/[^/]+\/[^/]+$/.test(href)),
    );
    await console_.page.click(`a[href="${links[0]}"]`);
    await console_.page.waitForSelector('table.diff');
    const sides = await console_.page.$$eval('table.diff tr.changed', (rows) =>
      rows.map((r) => [r.children[1].textContent, r.children[3].textContent]),
    );
    expect(sides.some(([before, after]) => before?.includes('ten euros') && after?.includes('twelve euros'))).toBe(true);
    await expectAccessible();
    await screenshot('06d-monitor-change');
  });

  it('is accessible at a phone width and in the dark theme', async () => {
    await console_.page.setViewport({ width: 390, height: 844 });
    for (const route of ['playground', 'collections', 'usage']) {
      await console_.goto(route);
      await console_.page.waitForSelector('main h1');
      await expectAccessible();
    }
    await console_.clickText('Dark theme');
    await console_.page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    for (const route of ['playground', 'viability', 'crawl', 'usage']) {
      await console_.goto(route);
      await console_.page.waitForSelector('main h1');
      await expectAccessible();
    }
    const overflow = await console_.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot('07-phone-dark');
    await console_.clickText('Light theme');
    await console_.page.setViewport({ width: 1280, height: 900 });
  });

  it('lets the administrator approve a country request with a note', async () => {
    const asked = await http(env.url, '/v1/proxy/request-country', { token, json: { country_code: 'DE', reason: 'German prices' } });
    expect(asked.body.status).toBe('pending');
    await console_.clickText('Sign out');
    await console_.signIn(env.adminToken);
    await console_.goto('admin');
    const row = `[data-testid="country-request-${clientId}/DE"]`;
    await console_.page.waitForSelector(row);
    await console_.page.type(`${row} input`, 'ok for the pilot');
    await console_.press(`button[aria-label="Approve ${clientId}/DE"]`);
    await console_.page.waitForFunction((sel) => !document.querySelector(sel), {}, row);
    const status = await http(env.url, '/v1/proxy/status', { token });
    expect(status.body.approved_countries).toContain('DE');
    await console_.page.select('#country-status', 'approved');
    await console_.waitForText('ok for the pilot', 'table');
    await expectAccessible();
    await screenshot('08-admin-country-approved');
  });
});

function rawGet(base: string, rawPath: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: rawPath, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The console is served by the gateway in every runtime: index, hashed assets, its strict CSP, and nothing else. */
describe.each(runtimesUnderTest('console-site'))('web console files — $name', (runtime) => {
  let env: InProcessPlatform;
  let cleanup: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform(prepared.env);
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
  });

  it('serves index.html and its assets without a token, under a CSP that allows only the gateway', async () => {
    const redirect = await fetch(`${env.url}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    await redirect.arrayBuffer();
    expect(redirect.headers.get('location')).toBe('/console/');
    const index = await fetch(`${env.url}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:|'unsafe-eval'|script-src[^;]*'unsafe-inline'/);
    const html = await index.text();
    expect(html).not.toMatch(/<script>(?!<)/); // no inline script: every script is a file
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const res = await fetch(`${env.url}${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toContain('immutable');
      // Read to the end: a body left unread holds its connection open past the file (undici pauses the socket).
      await res.arrayBuffer();
    }
  });

  it('answers 404 with the error body for anything that is not a file of the build', async () => {
    // Raw paths (node:http sends them as written; fetch would normalise the dots away).
    for (const probe of [
      '/console/assets/nope-12345678.js',
      '/console/assets/..%2f..%2fpackage.json',
      '/console/assets/%2e%2e/%2e%2e/package.json',
      '/console/index.html.bak',
      '/console/.vite/manifest.json',
    ]) {
      const res = await rawGet(env.url, probe);
      expect({ probe, status: res.status }).toEqual({ probe, status: 404 });
      expect(JSON.parse(res.body).error_code).toBe('not_found');
    }
  });

  it('is not part of the API description', async () => {
    const doc = (await http(env.url, '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/console'))).toEqual([]);
  });
});
