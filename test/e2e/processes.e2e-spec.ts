import { MESSAGE_CONTEXTS, SUBJECTS } from '@lib/contracts';
import { createTransportClient, MessageBus } from '@lib/messaging';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserFixtureSite, startBrowserFixtureSite } from '../support/browser-fixture-site';
import { startViabilityFixtureSite } from '../support/viability-fixture-site';
import { startGeneratedSite } from '../../bench/src/generated-site';
import { normalUrl } from '@lib/url-normal-form';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { articleHtml, startChangingSite } from '../support/changing-site';
import { chromiumProcessesBelow, isAlive } from '../support/chromium-processes';
import { distributedInfrastructureAvailable, TEST_NATS_URL, TEST_WEBHOOK_SECRET_KEYS } from '../support/infrastructure';
import { createTestDatabase, type TestDatabase } from '../support/postgres-database';
import { crawlJobs } from './support/crawl-jobs';
import { expectUsageHeaders, http } from './support/http';
import { spawn } from 'node:child_process';
import { buildDist, freePort, httpOk, ROOT, type ServiceProcess, startProcess, startService, waitFor } from './support/service-process';

/**
 * The real entry points as operators run them (compiled dist/, separate OS processes):
 * `npm start`'s process, configuration errors, SIGTERM, and the distributed runtime with every
 * context in its own process and two gateway replicas over NATS and Postgres.
 */
beforeAll(() => buildDist(), 180_000);

describe('the embedded platform process (npm start)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-proc-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('prints its address and tokens, serves, stops cleanly on SIGTERM, and keeps its data across restarts', async () => {
    const port = await freePort();
    const first = startProcess('platform', 'dist/apps/platform/src/main.js', { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
    await waitFor('the banner', async () => first.output().includes('listening on'), [first]);
    expect(first.output()).toContain(`http://127.0.0.1:${port}`);
    const demoToken = /demo token : (demo_\S+)/.exec(first.output())?.[1];
    expect(demoToken).toBeDefined();
    const health = await http(`http://127.0.0.1:${port}`, '/v1/health');
    expect(health.body).toMatchObject({ status: 'ok', runtime: 'embedded' });
    // The web console, from the build the process runs (dist/console), where the banner says.
    expect(first.output()).toContain(`console: http://127.0.0.1:${port}/console/`);
    const consolePage = await fetch(`http://127.0.0.1:${port}/console/`);
    expect([consolePage.status, await consolePage.text()]).toEqual([200, expect.stringContaining('/console/assets/')]);
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = startProcess('platform', 'dist/apps/platform/src/main.js', { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
    await waitFor('the banner', async () => second.output().includes('listening on'), [second]);
    expect(second.output()).toContain('generated at the first start and not stored in clear');
    expect(second.output()).not.toContain(demoToken!);
    expect((await http(`http://127.0.0.1:${port}`, '/v1/nowhere', { token: demoToken })).status).toBe(404);
    expect(await second.stop('SIGTERM')).toBe(0);
  });

  it('finishes a viability run that was mid-analysis when the process was killed (-9): the URL is analysed again, charged once', async () => {
    const site = await startViabilityFixtureSite();
    const port = await freePort();
    const env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      ADMIN_TOKEN: 'adm_viability_restart_token',
      BROWSER_WARM: 'false',
    };
    const base = `http://127.0.0.1:${port}`;
    try {
      const first = startProcess('platform', 'dist/apps/platform/src/main.js', env);
      await waitFor('the banner', async () => first.output().includes('listening on'), [first]);
      const token = (await http(base, '/v1/admin/clients', { token: env.ADMIN_TOKEN, json: { plan: 'pro' } })).body.token;
      const created = await http(base, '/v1/async/viability-test', {
        token,
        json: { urls: [`${site.url}/article`, `${site.url}/slow?ms=60000&times=2`], depth: 'quick' },
      });
      // The slow page holds its analysis open; the process dies in the middle of it.
      await waitFor('the slow page to be fetched', async () => (site.hits.get('/slow') ?? 0) >= 2, [first]);
      const killedAt = Date.now();
      first.child.kill('SIGKILL');
      await first.exited;

      const second = startProcess('platform', 'dist/apps/platform/src/main.js', { ...env });
      await waitFor('the banner', async () => second.output().includes('listening on'), [second]);
      const upAfterMs = Date.now() - killedAt;
      // The URL the killed process held is analysed again: its slow page fetched a third time.
      await waitFor('the held URL analysed again', async () => (site.hits.get('/slow') ?? 0) >= 3, [second], 30_000);
      const againAfterMs = Date.now() - killedAt;
      process.stdout.write(
        `embedded viability kill -9: serving again ${upAfterMs} ms, the held URL analysed again ${againAfterMs} ms after the kill\n`,
      );
      // Issue 61: the work the dead process held runs again within 10 s of its restart.
      expect(againAfterMs - upAfterMs).toBeLessThan(10_000);
      const read = () => http(base, `/v1/async/viability-test/${created.body.run_id}`, { token });
      await waitFor('the run to complete after the restart', async () => (await read()).body.status === 'completed', [second], 90_000);
      const done = (await read()).body;
      expect(done).toMatchObject({ total_urls: 2, completed_urls: 2 });
      expect(done.results.map((r: { recommended_strategy: string }) => r.recommended_strategy)).toEqual(['extract_html', 'extract_html']);
      expect(second.output()).toContain('under analysis when the platform stopped');
      // Two probes a URL at quick depth, each charged once in the ledger though the slow one ran
      // twice (the killed process's holds still count in X-Quota-Used until they expire).
      const billing = (await http(base, '/v1/sync/billing', { token })).body;
      expect(Object.values(billing.clients).map((c: any) => c.credits.total)).toEqual([4]);
      expect(await second.stop('SIGTERM')).toBe(0);
    } finally {
      await site.close();
    }
  }, 180_000);

  it('finishes a crawl that was under way when the process was killed (-9): every page once, charged once, one webhook, one page webhook per page', async () => {
    const site = await startGeneratedSite({ articles: 150 });
    const receiver = await startWebhookReceiver();
    const port = await freePort();
    const env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${new URL(receiver.url).port}`,
      ADMIN_TOKEN: 'adm_crawl_restart_token',
      BROWSER_WARM: 'false',
    };
    const base = `http://127.0.0.1:${port}`;
    try {
      const first = startProcess('platform', 'dist/apps/platform/src/main.js', env);
      await waitFor('the banner', async () => first.output().includes('listening on'), [first]);
      const token = (await http(base, '/v1/admin/clients', { token: env.ADMIN_TOKEN, json: { plan: 'enterprise' } })).body.token;
      const started = (
        await http(base, '/v1/crawl', {
          token,
          json: {
            url: `${site.url}/`,
            sitemap: 'skip',
            max_depth: 3,
            max_pages: 1_000,
            callback_url: `${receiver.url}/hook`,
            page_webhooks: true,
          },
        })
      ).body;
      const fetched = () => [...site.hits.values()].reduce((a, b) => a + b, 0);
      await waitFor('the crawl to be under way', async () => fetched() >= 60, [first]);
      const killedAt = Date.now();
      first.child.kill('SIGKILL');
      await first.exited;
      const atKill = fetched();

      const second = startProcess('platform', 'dist/apps/platform/src/main.js', { ...env });
      await waitFor('the banner', async () => second.output().includes('listening on'), [second]);
      const upAfterMs = Date.now() - killedAt;
      await waitFor('the crawl fetching again', async () => fetched() > atKill, [second], 30_000);
      const againAfterMs = Date.now() - killedAt;
      process.stdout.write(`embedded crawl kill -9: serving again ${upAfterMs} ms, fetching again ${againAfterMs} ms after the kill\n`);
      // Issue 61: the work the dead process held runs again within 10 s of its restart.
      expect(againAfterMs - upAfterMs).toBeLessThan(10_000);
      const read = () => http(base, `/v1/crawl/${started.crawl_id}`, { token });
      await waitFor('the crawl to complete after the restart', async () => (await read()).body.status === 'completed', [second], 120_000);
      const done = (await read()).body;
      expect(done).toMatchObject({ state: 'completed', queued: 0 });
      expect(fetched()).toBeGreaterThan(atKill);
      const jobs = await crawlJobs(base, token, started.crawl_id);
      const keys = jobs.map((j) => normalUrl(j.url)!.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(jobs).toHaveLength(done.discovered);
      const listed = new Set(keys);
      expect(site.truth.articles.filter((u) => !listed.has(normalUrl(u)!.key))).toEqual([]);
      for (const disallowed of site.truth.disallowedPaths) expect(site.hits.get(disallowed) ?? 0).toBe(0);
      // Charged once: the jobs' credits are the crawl's, and the month's ledger holds exactly those.
      expect(jobs.reduce((sum, j) => sum + j.credits, 0)).toBe(done.credits_charged);
      const billing = (await http(base, '/v1/sync/billing', { token })).body;
      expect(Object.values(billing.clients).map((c: any) => c.credits.total)).toEqual([done.credits_charged]);
      type Hook = { event: string; crawl_id: string; job_id?: string; deliveryId: string };
      const hooks = (): Hook[] =>
        receiver.received.map((hit) => ({ ...JSON.parse(hit.raw), deliveryId: String(hit.headers['x-service-delivery-id']) }) as Hook);
      const ran = jobs.filter((j) => j.status !== 'cancelled').map((j) => j.job_id);
      const pageHooks = () => hooks().filter((h) => h.event === 'crawl.page');
      await waitFor(
        'the crawl.completed webhook and a crawl.page per page',
        async () => hooks().some((h) => h.event === 'crawl.completed') && new Set(pageHooks().map((h) => h.job_id)).size >= ran.length,
        [second],
        60_000,
      );
      await new Promise((r) => setTimeout(r, 1_000));
      const completions = hooks().filter((h) => h.event === 'crawl.completed');
      expect(completions.map((h) => [h.event, h.crawl_id])).toEqual([['crawl.completed', started.crawl_id]]);
      // One announcement per page that ran, under one delivery id (the kill may have cut a POST short: sent again under its id).
      expect([...new Set(pageHooks().map((h) => h.job_id))].sort()).toEqual([...ran].sort());
      expect(new Set(pageHooks().map((h) => h.deliveryId)).size).toBe(ran.length);
      expect(await second.stop('SIGTERM')).toBe(0);
    } finally {
      await site.close();
      await receiver.close();
    }
  }, 240_000);

  it('finishes a monitor tick that was under way when the process was killed (-9): one tick, every page compared once, charged once, one webhook', async () => {
    const site = await startChangingSite();
    const receiver = await startWebhookReceiver();
    const names = Array.from({ length: 120 }, (_, i) => `watched-${i}`);
    for (const name of names) site.pages.set(name, { html: articleHtml(name, name) });
    site.delayMs = 40;
    const port = await freePort();
    const env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${new URL(receiver.url).port}`,
      ADMIN_TOKEN: 'adm_monitor_restart_token',
      BROWSER_WARM: 'false',
    };
    const base = `http://127.0.0.1:${port}`;
    try {
      const first = startProcess('platform', 'dist/apps/platform/src/main.js', env);
      await waitFor('the banner', async () => first.output().includes('listening on'), [first]);
      const token = (await http(base, '/v1/admin/clients', { token: env.ADMIN_TOKEN, json: { plan: 'pro' } })).body.token;
      const monitor = (
        await http(base, '/v1/monitors', {
          token,
          json: {
            urls: names.map((n) => `${site.url}/${n}`),
            schedule: { interval_seconds: 86_400 },
            webhook_url: `${receiver.url}/monitor`,
          },
        })
      ).body;
      await waitFor('the tick to be under way', async () => site.requests.length >= 30, [first]);
      const killedAt = Date.now();
      first.child.kill('SIGKILL');
      await first.exited;
      const atKill = site.requests.length;

      const second = startProcess('platform', 'dist/apps/platform/src/main.js', { ...env });
      await waitFor('the banner', async () => second.output().includes('listening on'), [second]);
      const upAfterMs = Date.now() - killedAt;
      await waitFor('the tick fetching again', async () => site.requests.length > atKill, [second], 30_000);
      process.stdout.write(
        `embedded monitor kill -9: serving again ${upAfterMs} ms, fetching again ${Date.now() - killedAt} ms after the kill\n`,
      );
      const ticks = async () => (await http(base, `/v1/monitors/${monitor.id}/ticks`, { token })).body.ticks;
      await waitFor('the tick reported', async () => (await ticks())[0]?.changes !== null, [second], 120_000);
      const [tick, ...others] = await ticks();
      expect(others).toEqual([]);
      expect(tick).toMatchObject({ status: 'completed', pages: 120, changes: 120, credits_charged: 120 });
      const changes = (await http(base, `/v1/monitors/${monitor.id}/changes?limit=1000`, { token })).body.changes;
      expect(changes.map((c: { url: string }) => c.url).sort()).toEqual(names.map((n) => `${site.url}/${n}`).sort());
      expect(new Set(changes.map((c: { change_status: string }) => c.change_status))).toEqual(new Set(['new']));
      const billing = (await http(base, '/v1/sync/billing', { token })).body;
      expect(Object.values(billing.clients).map((c: any) => c.credits.total)).toEqual([120]);
      await waitFor('the webhook', async () => receiver.received.some((r) => r.path === '/monitor'), [second], 30_000);
      await new Promise((r) => setTimeout(r, 1_000));
      const hooks = receiver.received.filter((r) => r.path === '/monitor').map((r) => JSON.parse(r.raw));
      expect(hooks.map((h) => [h.tick_id, h.changes.length])).toEqual([[tick.tick_id, 120]]);
      expect(await second.stop('SIGTERM')).toBe(0);
    } finally {
      await site.close();
      await receiver.close();
    }
  }, 240_000);

  it("gives a killed (-9) process's credit lease back to the month when the lease expires, and a restart never charges it", async () => {
    const site = await startViabilityFixtureSite();
    const port = await freePort();
    const env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      ADMIN_TOKEN: 'adm_lease_restart_token',
      BROWSER_WARM: 'false',
      CREDIT_LEASE_SECONDS: '20',
    };
    const base = `http://127.0.0.1:${port}`;
    try {
      const first = startProcess('platform', 'dist/apps/platform/src/main.js', env);
      await waitFor('the banner', async () => first.output().includes('listening on'), [first]);
      const client = (await http(base, '/v1/admin/clients', { token: env.ADMIN_TOKEN, json: { plan: 'pro', monthly_credits: 100 } })).body;
      const scraped = await http(base, '/v1/sync/scrape', { token: client.token, json: { url: `${site.url}/article` } });
      expect([scraped.status, scraped.headers.get('x-credits-charged'), scraped.headers.get('x-quota-used')]).toEqual([200, '1', '1']);
      first.child.kill('SIGKILL');
      await first.exited;

      const second = startProcess('platform', 'dist/apps/platform/src/main.js', env);
      await waitFor('the banner', async () => second.output().includes('listening on'), [second]);
      // The dead process's lease (1 needed + a block of 8) still counts as used: nobody can spend it...
      const used = async () => Number((await http(base, '/v1/plans', { token: client.token })).headers.get('x-quota-used'));
      expect(await used()).toBe(9);
      // ...until it expires; then used is exactly what was charged.
      await waitFor('the lease to expire', async () => (await used()) === 1, [second], 60_000);
      const billing = (await http(base, '/v1/sync/billing', { token: client.token })).body;
      expect(billing.clients[client.client_id].credits.total).toBe(1);
      expect(await second.stop('SIGTERM')).toBe(0);
    } finally {
      await site.close();
    }
  }, 180_000);

  it('drains on SIGTERM: /readyz answers 503 at once while the process keeps serving for DRAIN_SECONDS, then it exits 0', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = startProcess('platform', 'dist/apps/platform/src/main.js', {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      DRAIN_SECONDS: '3',
      LOG_LEVEL: 'info',
    });
    await waitFor('the platform to be ready', () => httpOk(`${base}/readyz`), [proc]);
    const signalled = Date.now();
    proc.child.kill('SIGTERM');
    await waitFor('readiness to turn false', async () => (await fetch(`${base}/readyz`)).status === 503, [], 2000);
    const readyz = await http(base, '/readyz');
    expect(readyz).toMatchObject({ status: 503, body: { status: 'draining' } });
    // Still serving while the load balancer catches up: liveness and the API answer.
    expect((await http(base, '/livez')).status).toBe(200);
    expect((await http(base, '/v1/health')).status).toBe(200);
    expect(await proc.exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(3000);
    expect(proc.output()).toContain('draining for 3000 ms');
  });

  it('stops the whole platform when npm start itself gets SIGTERM (no orphaned node process)', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    await waitFor('npm start to serve', () => httpOk(`http://127.0.0.1:${port}/v1/health/live`));
    npm.kill('SIGTERM');
    await exited;
    await waitFor(
      'the port to be released',
      async () => !(await httpOk(`http://127.0.0.1:${port}/v1/health/live`).catch(() => false)),
      [],
      10_000,
    );
    expect(output).toContain('received SIGTERM, shutting down');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ NATS_URL: 'http://not-nats' }, 'NATS_URL'],
    [{ PROXY_POOL: '[1,2]' }, 'PROXY_POOL'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
    [{ DATABASE_URL: 'postgresql://u@127.0.0.1/db' }, 'WEBHOOK_SECRET_KEYS'],
    [{ WEBHOOK_SECRET_KEYS: 'k1:dG9vLXNob3J0' }, 'WEBHOOK_SECRET_KEYS'],
  ])('exits 1 with a one-line reason on invalid configuration %p', async (env, name) => {
    const proc = startProcess('platform', 'dist/apps/platform/src/main.js', { DATA_DIR: dataDir, ...env });
    expect(await proc.exited).toBe(1);
    const lines = proc.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^invalid configuration: /);
    expect(lines[0]).toContain(name);
  });

  it('refuses to start one context alone without NATS_URL and DATABASE_URL', async () => {
    const proc = startProcess('start-service', 'scripts/start-service.js', {});
    expect(await proc.exited).toBe(1);
    const billing = startService('billing-meter', {});
    expect(await billing.exited).toBe(1);
    expect(billing.output()).toContain('needs NATS_URL and DATABASE_URL');
  });
});

(distributedInfrastructureAvailable() ? describe : describe.skip)(
  'the distributed runtime: every context its own process, two gateways',
  () => {
    let database: TestDatabase;
    const processes: ServiceProcess[] = [];
    const contexts = new Map<string, ServiceProcess>();
    const healthPorts = new Map<string, number>();
    let gatewayUrls: string[] = [];
    const adminToken = `adm_distributed_${Date.now()}_test`;
    let env: Record<string, string>;

    function startContext(name: string): ServiceProcess {
      const proc = startService(name, { ...env, HEALTH_PORT: String(healthPorts.get(name)) });
      processes.push(proc);
      contexts.set(name, proc);
      return proc;
    }

    let site: BrowserFixtureSite;

    beforeAll(async () => {
      database = await createTestDatabase('distributed');
      site = await startBrowserFixtureSite();
      env = {
        NATS_URL: TEST_NATS_URL,
        DATABASE_URL: database.url,
        WEBHOOK_SECRET_KEYS: TEST_WEBHOOK_SECRET_KEYS,
        ADMIN_TOKEN: adminToken,
        DEMO_TOKEN: `demo_distributed_${Date.now()}_test`,
        TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
        // Both browsers from the start and kept open, so the SIGTERM test sees both kinds stop.
        BROWSER_WARM: 'true',
        BROWSER_IDLE_CLOSE_SECONDS: '0',
      };
      for (const name of MESSAGE_CONTEXTS) healthPorts.set(name, await freePort());
      for (const name of MESSAGE_CONTEXTS) startContext(name);
      await Promise.all(
        MESSAGE_CONTEXTS.map((name) =>
          waitFor(`${name} ready`, () => httpOk(`http://127.0.0.1:${healthPorts.get(name)}/ready`), processes),
        ),
      );
      const ports = [await freePort(), await freePort()];
      for (const port of ports) processes.push(startService('gateway', { ...env, PORT: String(port), HOST: '127.0.0.1' }));
      gatewayUrls = ports.map((p) => `http://127.0.0.1:${p}`);
      await Promise.all(gatewayUrls.map((u) => waitFor(`gateway ${u}`, () => httpOk(`${u}/v1/health/live`), processes)));
    }, 180_000);

    afterAll(async () => {
      await Promise.all(processes.map((p) => p.stop('SIGKILL')));
      await database?.drop();
      await site?.close();
    });

    it('renders browser pages in the separate scrape-engine process and carries a multi-MB screenshot back over NATS', async () => {
      const created = await http(gatewayUrls[0], '/v1/admin/clients', { token: adminToken, json: { plan: 'pro' } });
      const res = await http(gatewayUrls[1], '/v1/sync/scrape', {
        token: created.body.token,
        json: { url: `${site.url}/noise`, browser: true, browser_type: 'light', screenshot: true, extract: { title: 'h1' } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ statusCode: 200, extracted_data: { title: 'Noise' } });
      const png = Buffer.from(res.body.screenshot, 'base64');
      expect(png.length).toBeGreaterThan(2 * 1024 * 1024);
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(res.headers.get('x-credits-charged')).toBe('5');
    });

    it('reports every context healthy over NATS through either gateway', async () => {
      for (const url of gatewayUrls) {
        const res = await http(url, '/v1/health');
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          status: 'ok',
          runtime: 'distributed',
          checks: { transport: { status: 'ok', kind: 'nats' }, database: { status: 'ok' } },
        });
        expect(Object.keys(res.body.services).sort()).toEqual([...MESSAGE_CONTEXTS].sort());
      }
    });

    it("serves probes and Prometheus metrics on each context's HEALTH_PORT, and the gateway's /metrics with the admin token", async () => {
      for (const name of MESSAGE_CONTEXTS) {
        const base = `http://127.0.0.1:${healthPorts.get(name)}`;
        expect((await fetch(`${base}/livez`)).status).toBe(200);
        expect((await fetch(`${base}/readyz`)).status).toBe(200);
        const metrics = await fetch(`${base}/metrics`);
        expect(metrics.status).toBe(200);
        const text = await metrics.text();
        expect([name, text]).toEqual([name, expect.stringContaining('scrape_platform_dependency_up{dependency="nats"} 1')]);
        expect(text).toContain('process_resident_memory_bytes');
      }
      const engine = await (await fetch(`http://127.0.0.1:${healthPorts.get('scrape-engine')}/metrics`)).text();
      expect(engine).toMatch(/scrape_platform_scrapes_total\{mode="browser",outcome="success",error_type="none"\} [1-9]/);
      expect(engine).toMatch(/scrape_platform_browser_pool_browsers\{kind="light"\} [1-9]/);
      const gateway = await fetch(`${gatewayUrls[0]}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } });
      expect(gateway.status).toBe(200);
      expect(await gateway.text()).toMatch(
        /scrape_platform_http_requests_total\{method="GET",route="\/v1\/health\/live",status="200"\} [1-9]/,
      );
    });

    it('enforces one rate limit across replicas: 50 concurrent requests at 10/minute through 2 gateways → exactly 10 succeed', async () => {
      const created = await http(gatewayUrls[0], '/v1/admin/clients', {
        token: adminToken,
        json: { plan: 'free', rate_limit_per_minute: 10 },
      });
      expect(created.status).toBe(201);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => http(gatewayUrls[i % 2], '/v1/plans', { token: created.body.token })),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(40);
      for (const r of results) expectUsageHeaders(r);
      for (const r of results.filter((x) => x.status === 429)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    });

    it('sees a token rotated through one gateway as revoked at the other at once', async () => {
      const created = await http(gatewayUrls[0], '/v1/admin/clients', { token: adminToken, json: { plan: 'pro' } });
      const rotated = await http(gatewayUrls[0], `/v1/admin/clients/${created.body.client_id}/rotate-token`, {
        method: 'POST',
        token: adminToken,
      });
      expect((await http(gatewayUrls[1], '/v1/nowhere', { token: created.body.token })).status).toBe(401);
      expect((await http(gatewayUrls[1], '/v1/nowhere', { token: rotated.body.token })).status).toBe(404);
    });

    it("updates every gateway replica's quota headers from billing-meter events when credits are charged elsewhere", async () => {
      const created = await http(gatewayUrls[0], '/v1/admin/clients', { token: adminToken, json: { plan: 'starter' } });
      for (const url of gatewayUrls)
        expect((await http(url, '/v1/plans', { token: created.body.token })).headers.get('x-quota-used')).toBe('0');
      const bus = new MessageBus(createTransportClient('test', { natsUrl: TEST_NATS_URL }), 5000);
      await bus.connect();
      try {
        const hold = await bus.request(SUBJECTS.billing.creditsReserve, {
          client_id: created.body.client_id,
          monthly_credits: 10000,
          credits: 5,
          ttl_seconds: 60,
        });
        await bus.request(SUBJECTS.billing.creditsCommit, {
          reservation_id: hold.reservation_id!,
          credits: 5,
          charge_key: `proc-${created.body.client_id}`,
          mode: 'browser',
        });
      } finally {
        await bus.close();
      }
      for (const url of gatewayUrls) {
        await waitFor(
          `quota headers on ${url}`,
          async () => (await http(url, '/v1/plans', { token: created.body.token })).headers.get('x-quota-used') === '5',
          [],
          15_000,
        );
      }
    });

    it('never overdraws a quota across two gateways: 60 concurrent scrapes through both against 15 credits', async () => {
      const created = await http(gatewayUrls[0], '/v1/admin/clients', {
        token: adminToken,
        json: { plan: 'pro', monthly_credits: 15, rate_limit_per_minute: 100_000 },
      });
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          http(gatewayUrls[i % 2], '/v1/sync/scrape', { token: created.body.token, json: { url: `${site.url}/list?q=${i}` } }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      expect(results.filter((r) => r.status !== 200).every((r) => r.status === 429)).toBe(true);
      // Each gateway leases only half of what would remain, so the last credits go one at a time:
      // all 15 are spent, none twice.
      expect(ok).toHaveLength(15);
      const charged = results.reduce((sum, r) => sum + Number(r.headers.get('x-credits-charged')), 0);
      expect(charged).toBe(15);
      const billing = (await http(gatewayUrls[1], `/v1/sync/billing?client=${created.body.client_id}`, { token: adminToken })).body;
      expect(billing.clients[created.body.client_id].credits.total).toBe(15);
    });

    it("gives a killed (-9) gateway's credit lease back when it expires", async () => {
      const port = await freePort();
      const doomed = startService('gateway', { ...env, PORT: String(port), HOST: '127.0.0.1', CREDIT_LEASE_SECONDS: '8' });
      processes.push(doomed);
      const doomedUrl = `http://127.0.0.1:${port}`;
      await waitFor('the third gateway', () => httpOk(`${doomedUrl}/v1/health/live`), [doomed]);
      const created = await http(gatewayUrls[0], '/v1/admin/clients', { token: adminToken, json: { plan: 'pro', monthly_credits: 100 } });
      const scraped = await http(doomedUrl, '/v1/sync/scrape', { token: created.body.token, json: { url: `${site.url}/list?lease` } });
      expect(scraped.headers.get('x-credits-charged')).toBe('1');
      await doomed.stop('SIGKILL');
      const bus = new MessageBus(createTransportClient('test', { natsUrl: TEST_NATS_URL }), 5000);
      await bus.connect();
      try {
        const used = async () =>
          (await bus.request(SUBJECTS.billing.quotaQuery, { client_id: created.body.client_id, monthly_credits: 100 })).used;
        // 1 charged + the dead gateway's unused lease (a block of 8).
        expect(await used()).toBe(9);
        await waitFor('the lease to expire', async () => (await used()) === 1, [], 30_000);
      } finally {
        await bus.close();
      }
    });

    it('reports a killed context as down (503), keeps serving, and recovers when it comes back', async () => {
      const billing = contexts.get('billing-meter')!;
      await billing.stop('SIGKILL');
      const degraded = await http(gatewayUrls[1], '/v1/health');
      expect(degraded.status).toBe(503);
      expect(degraded.body.status).toBe('degraded');
      expect(degraded.body.services['billing-meter'].status).toBe('down');
      expect(degraded.body.services['scrape-engine'].status).toBe('ok');
      expect((await http(gatewayUrls[1], '/v1/plans', { token: adminToken })).status).toBe(200);

      startContext('billing-meter');
      await waitFor('billing-meter back', () => httpOk(`http://127.0.0.1:${healthPorts.get('billing-meter')}/ready`), processes);
      await waitFor('health ok again', async () => (await http(gatewayUrls[1], '/v1/health')).status === 200);
    });

    it("stops every process cleanly on SIGTERM, scrape-engine's browsers included", async () => {
      const browsers = chromiumProcessesBelow(contexts.get('scrape-engine')!.child.pid!);
      expect(browsers.filter((b) => b.main).length).toBe(2);
      const codes = await Promise.all(
        processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null).map((p) => p.stop('SIGTERM')),
      );
      expect(codes.every((c) => c === 0)).toBe(true);
      await waitFor('every Chromium process to exit', async () => browsers.every((b) => !isAlive(b.pid)), [], 10_000);
    });
  },
);
