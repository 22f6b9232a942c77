import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScrapingClient, ScrapingApiError, type ScrapingClient, verifyWebhook, WebhookVerificationError } from '../../sdk/src';
import { contractCheckedFetch } from '../support/api-contract';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { http as call } from './support/http';
import { rateLimitForPolling } from './support/eventually';
import { runtimesUnderTest } from './support/runtimes';
import { ROOT, underBuildLock } from './support/service-process';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { packSdk } = require('../../scripts/build.js') as { packSdk(options: { destination: string }): string | null };

/**
 * The TypeScript SDK (sdk/) against the live service in both runtimes, every response it receives
 * judged against the served document: typed results, typed errors with error_code, idempotent
 * creates, waiting for a run, paging its jobs and results, and verifying a real webhook.
 */
describe.each(runtimesUnderTest('sdk'))('TypeScript SDK — $name', (runtime) => {
  let site: FixtureSite;
  let receiver: WebhookReceiver;
  let env: InProcessPlatform;
  let cleanup: () => Promise<void> = async () => undefined;
  let sdk: ScrapingClient;
  let token: string;

  beforeAll(async () => {
    site = await startFixtureSite();
    receiver = await startWebhookReceiver();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiver.port}`,
      WEBHOOK_POLL_INTERVAL_MS: '50',
      BROWSER_WARM: 'false',
    });
    token = (
      await call(env.url, '/v1/admin/clients', {
        token: env.adminToken,
        json: { plan: 'pro', rate_limit_per_minute: rateLimitForPolling(100) },
      })
    ).body.token;
    sdk = createScrapingClient({ baseUrl: env.url, token, fetch: contractCheckedFetch(env.url) });
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await receiver?.close();
    await site?.close();
  });

  it('scrapes with a typed result', async () => {
    const result = await sdk.scrape({ url: `${site.url}/page`, format: 'markdown' });
    expect(result.statusCode).toBe(200);
    expect(result.markdown).toContain('#');
    expect(result.guidance.credits_charged).toBe(1);
  });

  it('reads a page by its URL (the target encoded in the path, its own query kept) and pages it by token windows', async () => {
    const url = `${site.url}/page?format=csv&id=3`;
    const whole = await sdk.read(url);
    expect(whole.statusCode).toBe(200);
    expect(whole.markdown).toContain('# ');
    const windows: string[] = [];
    for await (const part of sdk.readWindows(url, { max_tokens: 16 })) {
      expect(part.content_window!.tokens).toBeLessThanOrEqual(16);
      windows.push(part.markdown ?? '');
    }
    expect(windows.length).toBeGreaterThan(1);
    expect(windows.join('')).toBe(whole.markdown);
  });

  it('converts a document it already has, typed by its Blob or its name, and a refusal as a typed error', async () => {
    const csv = new TextEncoder().encode('item,price\nApple,1.20\n');
    const converted = await sdk.convertDocument(new Blob([csv], { type: 'text/csv' }));
    expect(converted).toMatchObject({ content_type: 'text/csv', credits_charged: 1, document: { format: 'csv' } });
    expect(converted.markdown).toContain('| Apple | 1.20 |');
    const named = await sdk.convertDocument(csv, { filename: 'prices.csv', format: 'html' });
    expect(named.html).toContain('<th>item</th>');
    expect(await sdk.convertDocument(csv, { filename: 'prices.csv', ocr: false })).toMatchObject({ credits_charged: 1 });
    const refused = await sdk.convertDocument(new TextEncoder().encode('no document'), { filename: 'notes.txt' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ScrapingApiError);
    expect(refused).toMatchObject({ status: 415, errorCode: 'unsupported_document' });
  });

  it('throws ScrapingApiError carrying error_code, problems and the status', async () => {
    const invalid = await sdk.scrape({ url: `${site.url}/page`, screenshot: true }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ScrapingApiError);
    expect((invalid as ScrapingApiError).status).toBe(422);
    expect((invalid as ScrapingApiError).errorCode).toBe('validation_error');
    expect((invalid as ScrapingApiError).problems.map((p) => p.loc.join('.'))).toContain('body.screenshot');

    const blocked = await sdk.scrape({ url: 'http://10.0.0.1/' }).catch((e: unknown) => e);
    expect([(blocked as ScrapingApiError).status, (blocked as ScrapingApiError).errorCode]).toEqual([422, 'target_blocked']);

    const anonymous = createScrapingClient({ baseUrl: env.url, token: 'sk_wrong', fetch: contractCheckedFetch(env.url) });
    const denied = await anonymous.scrape({ url: `${site.url}/page` }).catch((e: unknown) => e);
    expect([(denied as ScrapingApiError).status, (denied as ScrapingApiError).errorCode]).toEqual([401, 'invalid_token']);

    const missing = await sdk
      .getRun('00000000-0000-4000-8000-000000000000', '00000000-0000-4000-8000-000000000001')
      .catch((e: unknown) => e);
    expect([(missing as ScrapingApiError).status, (missing as ScrapingApiError).errorCode]).toEqual([404, 'run_not_found']);
  });

  it('creates collections idempotently, waits for the run, pages its jobs and fetches every result', async () => {
    const requests = Array.from({ length: 5 }, (_, i) => ({ url: `${site.url}/page`, custom_id: `item-${i}` }));
    const body = { name: 'sdk', requests, callback_url: `http://127.0.0.1:${receiver.port}/hook` };
    const first = await sdk.createCollection(body);
    expect(first.replayed).toBe(false);
    const again = await sdk.createCollection(body, { idempotencyKey: first.idempotencyKey });
    expect(again.replayed).toBe(true);
    expect(again.collection.id).toBe(first.collection.id);
    const collectionId = first.collection.id!;

    const started = await sdk.startRun(collectionId);
    const run = await sdk.waitForRun(collectionId, started.run_id, { pollIntervalMs: 100, timeoutMs: 60_000 });
    expect(run.status).toBe('completed');
    expect(run.success_requests).toBe(5);

    // limit 2 over 5 jobs: three pages, every job once (the listing lags completion by design).
    const listed: string[] = [];
    for (let tries = 0; tries < 50 && listed.length < 5; tries += 1) {
      listed.length = 0;
      for await (const job of sdk.jobs(collectionId, run.run_id, { limit: 2 })) listed.push(job.custom_id ?? '');
      if (listed.length < 5) await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed.sort()).toEqual(requests.map((r) => r.custom_id).sort());

    const results = [];
    for await (const entry of sdk.results(collectionId, run.run_id)) results.push(entry);
    expect(results).toHaveLength(5);
    expect(results.every((r) => r.result?.statusCode === 200 && r.result.url === `${site.url}/page`)).toBe(true);
    expect((await sdk.jobResult(collectionId, run.run_id, run.job_ids[0]!)).status).toBe('completed');
  });

  it('starts a viability test, waits for its verdicts and lists it', async () => {
    const started = await sdk.startViabilityTest({ urls: [`${site.url}/page`, `${site.url}/captcha`], depth: 'quick' });
    expect(started).toMatchObject({ status: 'in_progress', total_urls: 2, completed_urls: 0, results: null });
    const results = await sdk.waitForViabilityTest(started.run_id, { pollIntervalMs: 100, timeoutMs: 60_000 });
    expect(results.map((r) => [r.url, r.recommended_strategy])).toEqual([
      [`${site.url}/page`, 'extract_html'],
      [`${site.url}/captcha`, 'blocked'],
    ]);
    expect(results[1]).toMatchObject({ captcha_detected: true, captcha_providers: ['recaptcha'] });
    const listed = [];
    for await (const run of sdk.viabilityTests(1)) listed.push(run.run_id);
    expect(listed[0]).toBe(started.run_id);
  });

  it('maps a site: the page and its links, each once, and a bad pattern as a typed error', async () => {
    const map = await sdk.mapSite({ url: `${site.url}/page`, sitemap: 'skip', max_depth: 0 });
    expect(map).toMatchObject({ pages_fetched: 1, truncated: false, stopped_by: null });
    expect(new Set(map.urls).size).toBe(map.count);
    await expect(sdk.mapSite({ url: `${site.url}/page`, include_paths: ['re:('] })).rejects.toMatchObject({
      status: 400,
      errorCode: 'invalid_pattern',
    });
  });

  it('crawls a site: starts, waits, lists its pages, and refuses a move the state does not allow', async () => {
    const started = await sdk.startCrawl({ url: `${site.url}/page`, sitemap: 'skip', max_depth: 0 });
    const done = await sdk.waitForCrawl(started.crawl_id, { pollIntervalMs: 100, timeoutMs: 60_000 });
    expect(done).toMatchObject({ state: 'completed', completed: 1, zero_pages_reason: null });
    const pages = [];
    for await (const job of sdk.allJobs({ batch_id: started.crawl_id })) pages.push(job.url);
    expect(pages).toEqual([`${site.url}/page`]);
    await expect(sdk.setCrawlState(started.crawl_id, 'pause')).rejects.toMatchObject({ status: 409, errorCode: 'invalid_state' });
    // Its llms.txt (free), and one made by a crawl of its own, waited for.
    expect((await sdk.llmsTxtOf(started.crawl_id)).llms_txt).toMatch(/^# /);
    const made = await sdk.makeLlmsTxt(
      { url: `${site.url}/page`, sitemap: 'skip', max_depth: 0 },
      { pollIntervalMs: 100, timeoutMs: 60_000 },
    );
    expect(made).toMatchObject({ status: 'completed', pages_scraped: 1, pages_listed: 0, credits_charged: 1 });
  });

  it('watches pages with a monitor: creates, reads its first tick and its changes, pauses, and deletes it', async () => {
    const monitor = await sdk.createMonitor({ urls: [`${site.url}/page`], schedule: { interval_seconds: 3600 }, extract: { title: 'h1' } });
    expect(monitor.state).toBe('active');
    let ticks = await sdk.monitorTicks(monitor.id);
    for (let i = 0; i < 200 && (ticks.length === 0 || ticks[0].changes === null); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      ticks = await sdk.monitorTicks(monitor.id);
    }
    expect(ticks[0]).toMatchObject({ status: 'completed', pages: 1, changes: 1 });
    expect((await sdk.monitorChanges(monitor.id)).map((c) => c.change_status)).toEqual(['new']);
    expect((await sdk.setMonitorState(monitor.id, 'pause')).state).toBe('paused');
    expect((await sdk.listMonitors()).map((m) => m.id)).toContain(monitor.id);
    await sdk.deleteMonitor(monitor.id);
    await expect(sdk.getMonitor(monitor.id)).rejects.toMatchObject({ status: 404, errorCode: 'monitor_not_found' });
  });

  it("lists a crawl's page webhooks, verifies one as a receiver would, and redelivers it", async () => {
    const { secret } = (await sdk.api.GET('/v1/webhooks/secret')).data!;
    const started = await sdk.startCrawl({
      url: `${site.url}/page`,
      sitemap: 'skip',
      max_depth: 0,
      callback_url: `http://127.0.0.1:${receiver.port}/crawl-hook`,
      page_webhooks: true,
    });
    await sdk.waitForCrawl(started.crawl_id, { pollIntervalMs: 100, timeoutMs: 60_000 });
    const sent = async () => {
      const all = [];
      for await (const delivery of sdk.crawlDeliveries(started.crawl_id, 1)) all.push(delivery);
      return all;
    };
    const deadline = Date.now() + 20_000;
    let deliveries = await sent();
    while (!(deliveries.length === 2 && deliveries.every((d) => d.status === 'sent')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      deliveries = await sent();
    }
    expect(deliveries.map((d) => d.event).sort()).toEqual(['crawl.completed', 'crawl.page']);
    const page = deliveries.find((d) => d.event === 'crawl.page')!;
    expect(page.url).toBe(`${site.url}/page`);
    const hit = receiver.received.find((r) => r.headers['x-service-delivery-id'] === page.delivery_id)!;
    const event = verifyWebhook({
      secret,
      headers: { timestamp: String(hit.headers['x-service-timestamp']), signature: String(hit.headers['x-service-signature']) },
      rawBody: hit.body,
    });
    expect(event).toMatchObject({ event: 'crawl.page', crawl_id: started.crawl_id, job_id: page.job_id });
    const log = await sdk.redeliverCrawlDelivery(started.crawl_id, page.delivery_id);
    expect(log.delivery_id).toBe(page.delivery_id);
    expect((await sdk.crawlDelivery(started.crawl_id, page.delivery_id)).attempts.length).toBeGreaterThanOrEqual(1);
    await expect(sdk.crawlDelivery(started.crawl_id, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      status: 404,
      errorCode: 'webhook_not_found',
    });
  });

  it('verifies a real webhook delivery and refuses a tampered or replayed one', async () => {
    const { secret } = (await sdk.api.GET('/v1/webhooks/secret')).data!;
    const before = receiver.received.length;
    const created = await sdk.createCollection({
      name: 'hooked',
      requests: [{ url: `${site.url}/page` }],
      callback_url: `http://127.0.0.1:${receiver.port}/hook`,
    });
    const run = await sdk.startRun(created.collection.id!);
    await sdk.waitForRun(created.collection.id!, run.run_id, { pollIntervalMs: 100 });
    const deadline = Date.now() + 20_000;
    let delivery = receiver.received.slice(before).find((r) => r.raw.includes(run.run_id));
    while (!delivery && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      delivery = receiver.received.slice(before).find((r) => r.raw.includes(run.run_id));
    }
    expect(delivery).toBeDefined();
    const headers = {
      timestamp: String(delivery!.headers['x-service-timestamp']),
      signature: String(delivery!.headers['x-service-signature']),
    };
    expect(verifyWebhook({ secret, headers, rawBody: delivery!.body })).toMatchObject({ event: 'run.completed', run_id: run.run_id });

    const reason = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return error instanceof WebhookVerificationError ? error.reason : String(error);
      }
      return 'accepted';
    };
    expect(reason(() => verifyWebhook({ secret, headers, rawBody: Buffer.concat([delivery!.body, Buffer.from(' ')]) }))).toBe(
      'signature_mismatch',
    );
    expect(reason(() => verifyWebhook({ secret: `${secret}x`, headers, rawBody: delivery!.body }))).toBe('signature_mismatch');
    expect(reason(() => verifyWebhook({ secret, headers, rawBody: delivery!.raw, now: Date.now() + 10 * 60_000 }))).toBe('stale_timestamp');
    expect(reason(() => verifyWebhook({ secret, headers: { ...headers, signature: 'md5=abc' }, rawBody: delivery!.body }))).toBe(
      'malformed_signature',
    );
    expect(
      reason(() => verifyWebhook({ secret, headers: { timestamp: null, signature: headers.signature }, rawBody: delivery!.body })),
    ).toBe('missing_headers');
  });

  it('runs projects and batches through their helpers: create, append, run, wait, list every job, read its data', async () => {
    const project = await sdk.createProject({ name: `sdk-${runtime.mode}`, defaults: { format: 'markdown' }, max_concurrent_jobs: 2 });
    const { batch, idempotencyKey } = await sdk.createBatch({
      project_id: project.project_id,
      name: 'sdk batch',
      requests: [{ url: `${site.url}/page`, custom_id: 'one' }],
    });
    expect(batch.state).toBe('open');
    expect(
      (
        await sdk.createBatch(
          { project_id: project.project_id, name: 'sdk batch', requests: [{ url: `${site.url}/page`, custom_id: 'one' }] },
          { idempotencyKey },
        )
      ).replayed,
    ).toBe(true);
    const appended = await sdk.appendJobs(batch.batch_id, {
      requests: [
        { url: `${site.url}/news`, custom_id: 'two' },
        { url: `${site.url}/page`, custom_id: 'one' },
      ],
    });
    expect([appended.batch.added_requests, appended.batch.duplicates_skipped]).toEqual([1, 1]);
    expect((await sdk.runBatch(batch.batch_id)).state).toBe('running');
    const done = await sdk.waitForBatch(batch.batch_id, { pollIntervalMs: 100, timeoutMs: 60_000 });
    expect([done.state, done.success_requests, done.credits_charged]).toEqual(['completed', 2, 2]);
    const jobs = [];
    for await (const job of sdk.allJobs({ batch_id: batch.batch_id, limit: 1 })) jobs.push(job);
    expect(jobs.map((j) => j.custom_id).sort()).toEqual(['one', 'two']);
    expect(jobs.every((j) => j.job_public_id === j.job_id)).toBe(true);
    const data = await sdk.jobData(jobs[0].job_id);
    expect(data.markdown).toContain('#');
    const refused = await sdk.setBatchState(batch.batch_id, 'pause').catch((e: unknown) => e);
    expect([(refused as ScrapingApiError).status, (refused as ScrapingApiError).errorCode]).toEqual([409, 'invalid_state']);
    expect((await sdk.setProjectState(project.project_id, 'pause')).status).toBe('paused');
    expect((await sdk.setProjectState(project.project_id, 'resume')).status).toBe('active');
    const listed = [];
    for await (const p of sdk.projects({ limit: 1 })) listed.push(p.project_id);
    expect(listed).toContain(project.project_id);
    expect((await sdk.projectsSummary()).items.find((i) => i.project_id === project.project_id)?.jobs.completed).toBe(2);
    expect((await sdk.creditSummary()).by_project).toContainEqual({ project_id: project.project_id, credits: 2 });
  });

  (runtime.mode === 'embedded' ? it : it.skip)(
    "installs from the packed tarball into a project outside this repository and runs README's TypeScript example",
    async () => {
      const project = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-consumer-'));
      try {
        const tarball = underBuildLock(() => packSdk({ destination: project }) as string);
        fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
        // Offline: the SDK's dependencies are packed from this repository's node_modules and installed
        // beside it, so the install reads no registry (the test talks to nothing but loopback).
        const dependencies = dependencyClosure(JSON.parse(fs.readFileSync(path.join(ROOT, 'sdk', 'package.json'), 'utf8')).dependencies);
        const packed = dependencies.map((dir) =>
          path.join(project, execFileSync('npm', ['pack', '--silent', dir], { cwd: project, encoding: 'utf8' }).trim().split('\n').pop()!),
        );
        execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', tarball, ...packed], {
          cwd: project,
          stdio: 'pipe',
        });
        expect(fs.lstatSync(path.join(project, 'node_modules', '@scrape-platform', 'sdk')).isSymbolicLink()).toBe(false);
        // README's example as written, its imports on top and the rest in an async main, its URLs on the fixture site.
        const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
        const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
        expect(example).toContain('createBatch');
        const lines = example.replaceAll('https://example.com', site.url).replaceAll('http://localhost:8080', env.url).split('\n');
        const source = [
          ...lines.filter((l) => l.startsWith('import ')),
          'async function main(): Promise<void> {',
          ...lines.filter((l) => !l.startsWith('import ')),
          '}',
          'main().then(() => console.log("README example done"), (error) => { console.error(error); process.exit(1); });',
        ].join('\n');
        fs.writeFileSync(path.join(project, 'example.ts'), source);
        // Type-checked against the installed package's own declarations, strict, then run.
        execFileSync(
          process.execPath,
          [
            path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
            '--strict',
            '--target',
            'es2022',
            '--module',
            'commonjs',
            '--moduleResolution',
            'node',
            '--esModuleInterop',
            '--types',
            'node',
            '--typeRoots',
            path.join(ROOT, 'node_modules', '@types'),
            '--outDir',
            project,
            path.join(project, 'example.ts'),
          ],
          { cwd: project, stdio: 'pipe' },
        );
        // Asynchronously: the platform it calls runs in this very process.
        const { stdout: output } = await promisify(execFile)(process.execPath, [path.join(project, 'example.js')], {
          cwd: project,
          env: { ...process.env, TOKEN: token },
          encoding: 'utf8',
        });
        expect(output).toContain('README example done');
        expect(output).toMatch(/completed/);
      } finally {
        fs.rmSync(project, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

/** The folders in this repository's node_modules of `dependencies` and everything they depend on. */
function dependencyClosure(dependencies: Record<string, string> = {}): string[] {
  const found = new Set<string>();
  const visit = (names: string[]) => {
    for (const name of names) {
      const dir = path.join(ROOT, 'node_modules', name);
      if (found.has(dir)) continue;
      found.add(dir);
      visit(Object.keys(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies ?? {}));
    }
  };
  visit(Object.keys(dependencies));
  return [...found];
}
