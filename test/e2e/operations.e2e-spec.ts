import { BOUNDED_CONTEXTS, OPS_SUBJECTS } from '@lib/contracts';
import { connect, type NatsConnection } from 'nats';
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromiumProcessesBelow } from '../support/chromium-processes';
import { ARTICLE_HTML, closedLocalPort } from '../support/fixture-site';
import { distributedInfrastructureAvailable, TEST_NATS_URL, TEST_WEBHOOK_SECRET_KEYS } from '../support/infrastructure';
import { createTestDatabase, type TestDatabase } from '../support/postgres-database';
import { eventually } from './support/eventually';
import { http as call } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';

/**
 * What operators get (issue 20, docs/operations.md): ops events on NATS, each fact once and in
 * causal order; Prometheus metrics with every family fed and label sets that do not grow with
 * the URLs scraped; the probes and who may read /metrics.
 */

interface OpsEvent {
  subject: string;
  event_id: string;
  event: string;
  occurred_at: string;
  source: { service: string; instance: string };
  [field: string]: unknown;
}

/** Every ops event on a NATS server, from the moment of subscribing, as plain JSON. */
async function tapOpsEvents(url: string): Promise<{ events: OpsEvent[]; close(): Promise<void> }> {
  const nc: NatsConnection = await connect({ servers: [url], name: 'ops-e2e-tap' });
  const events: OpsEvent[] = [];
  const sub = nc.subscribe('ops.>');
  void (async () => {
    for await (const message of sub)
      events.push({ ...(JSON.parse(message.string()) as Omit<OpsEvent, 'subject'>), subject: message.subject } as OpsEvent);
  })();
  await nc.flush();
  return { events, close: () => nc.drain() };
}

/** Any path: an article (so any number of distinct URLs can be scraped); /slow/…: the same, 8 s late. */
async function startArticleSite(): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const answer = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE_HTML);
    // /slow/…: past a 5 s JOB_MAX_RUNTIME_SECONDS.
    if (req.url?.startsWith('/slow/')) setTimeout(answer, 8000).unref();
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A webhook receiver that answers 500 to the first delivery and 200 after (one retry, then delivered). */
async function startFlakyReceiver(): Promise<{ url: string; port: number; received: unknown[]; close(): Promise<void> }> {
  const received: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(received.length === 1 ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, port, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A webhook receiver that always answers 503. */
async function startDeadReceiver(): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(503).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Prometheus text → series (name + labels) with their values. */
function seriesOf(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    series.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return series;
}

function sumOf(series: Map<string, number>, name: string): number {
  let sum = 0;
  // `name` alone sums every series of the family; `name{label="…"` the ones starting so.
  const prefix = name.includes('{') ? name : `${name}{`;
  for (const [key, value] of series) if (key === name || key.startsWith(prefix)) sum += value;
  return sum;
}

(distributedInfrastructureAvailable() ? describe : describe.skip)('ops events over NATS (distributed runtime: NATS + Postgres)', () => {
  let database: TestDatabase;
  let env: InProcessPlatform;
  let tap: Awaited<ReturnType<typeof tapOpsEvents>>;
  let site: Awaited<ReturnType<typeof startArticleSite>>;
  let receiver: Awaited<ReturnType<typeof startFlakyReceiver>>;
  let deadReceiver: Awaited<ReturnType<typeof startDeadReceiver>>;
  let deadPort: number;
  let stopped = false;

  beforeAll(async () => {
    tap = await tapOpsEvents(TEST_NATS_URL);
    database = await createTestDatabase('ops-events');
    site = await startArticleSite();
    receiver = await startFlakyReceiver();
    deadReceiver = await startDeadReceiver();
    deadPort = await closedLocalPort();
    env = await startInProcessPlatform({
      NATS_URL: TEST_NATS_URL,
      DATABASE_URL: database.url,
      WEBHOOK_SECRET_KEYS: TEST_WEBHOOK_SECRET_KEYS,
      TARGET_ALLOWLIST: [site.port, receiver.port, deadReceiver.port, deadPort].map((p) => `127.0.0.1:${p}`).join(','),
      WEBHOOK_RETRY_DELAYS: '1',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      // A job past 5 s is a worker-level timeout (job-timed-out); a browser idle for 2 s is closed (browser-recycled).
      JOB_MAX_RUNTIME_SECONDS: '5',
      BROWSER_IDLE_CLOSE_SECONDS: '2',
    });
  }, 120_000);

  afterAll(async () => {
    if (!stopped) await env?.stop();
    await tap?.close();
    await database?.drop();
    await site?.close();
    await receiver?.close();
    await deadReceiver?.close();
  });

  const mine = (filter: (e: OpsEvent) => boolean) => tap.events.filter(filter);

  it('announces every context of the process as started, once each, as plain JSON with the envelope', async () => {
    const instance = `${os.hostname()}:${process.pid}`;
    await eventually(
      async () => mine((e) => e.source.instance === instance && e.event.endsWith('.service-started')).length >= BOUNDED_CONTEXTS.length,
      {
        what: 'service-started events',
      },
    );
    const started = mine((e) => e.source.instance === instance && e.event.endsWith('.service-started'));
    expect(started.map((e) => e.source.service).sort()).toEqual(
      // Every bounded context, the gateway included: the one list (libs/contracts), so a new context is counted too.
      [...BOUNDED_CONTEXTS].sort(),
    );
    for (const e of started) {
      expect(e.subject).toBe(`ops.${e.source.service}.service-started.v1`);
      expect(e).toMatchObject({ runtime: 'distributed', transport: 'nats', node_version: process.version });
      expect(Date.parse(e.occurred_at)).not.toBeNaN();
    }
  });

  it('runs a batch with a webhook and a failing job: run started, job failed, quota 80 %, run completed, webhook failed then delivered — each once, in order', async () => {
    const client = await call(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro', monthly_credits: 5 } });
    expect(client.status).toBe(201);
    const api = (path: string, init: Parameters<typeof call>[2] = {}) => call(env.url, path, { token: client.body.token, ...init });
    // One job at a time, the failing one first: at most 4 of the 5 credits are ever used or held,
    // so the client crosses 80 % and never 100 %.
    const project = await api('/v1/projects', { json: { name: 'ops', callback_url: receiver.url, max_concurrent_jobs: 1 } });
    expect(project.status).toBe(201);
    const urls = [`http://127.0.0.1:${deadPort}/gone`, ...[1, 2, 3, 4].map((i) => `${site.url}/p/${i}`)];
    const batch = await api('/v1/batches', { json: { project_id: project.body.project_id, requests: urls.map((url) => ({ url })) } });
    expect(batch.status).toBe(201);
    const batchId: string = batch.body.batch_id;
    expect((await api(`/v1/batches/${batchId}/run`, { method: 'POST' })).status).toBe(200);

    const ofBatch = () =>
      mine((e) => e.run_id === batchId || (e.subject === OPS_SUBJECTS.quotaThresholdReached && e.client_id === client.body.client_id));
    await eventually(async () => ofBatch().some((e) => e.subject === OPS_SUBJECTS.webhookDelivered), {
      what: 'webhook delivered',
      timeoutMs: 30_000,
    });
    // Anything late or doubled would show within a second.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const events = ofBatch();
    expect(events.map((e) => e.subject)).toEqual(
      expect.arrayContaining([
        OPS_SUBJECTS.runStarted,
        OPS_SUBJECTS.jobFailed,
        OPS_SUBJECTS.quotaThresholdReached,
        OPS_SUBJECTS.runCompleted,
      ]),
    );
    const once = (subject: string) => {
      const found = events.filter((e) => e.subject === subject);
      expect([subject, found.length]).toEqual([subject, 1]);
      return found[0];
    };
    const started = once(OPS_SUBJECTS.runStarted);
    const failed = once(OPS_SUBJECTS.jobFailed);
    const threshold = once(OPS_SUBJECTS.quotaThresholdReached);
    const completed = once(OPS_SUBJECTS.runCompleted);
    const retrying = once(OPS_SUBJECTS.webhookFailed);
    const delivered = once(OPS_SUBJECTS.webhookDelivered);
    expect(events.filter((e) => e.subject === OPS_SUBJECTS.jobTimedOut || e.subject === OPS_SUBJECTS.webhookExhausted)).toEqual([]);

    expect(started).toMatchObject({
      kind: 'batch',
      client_id: client.body.client_id,
      project_id: project.body.project_id,
      total_requests: 5,
    });
    expect(failed).toMatchObject({
      status: 'failed',
      job_status: 'failed',
      client_id: client.body.client_id,
      credits: 0,
      block_reason: null,
    });
    expect(typeof failed.error_type).toBe('string');
    expect(threshold).toMatchObject({ threshold_percent: 80, used: 4, limit: 5 });
    expect(completed).toMatchObject({
      kind: 'batch',
      state: 'completed',
      total_requests: 5,
      success_requests: 4,
      failed_requests: 1,
      timeout_requests: 0,
      cancelled_requests: 0,
      credits_charged: 4,
    });
    expect(retrying).toMatchObject({ webhook_event: 'batch.completed', attempt: 1, status_code: 500, error: 'HTTP 500' });
    expect(typeof retrying.next_attempt_at).toBe('string');
    expect(delivered).toMatchObject({ webhook_event: 'batch.completed', attempt: 2, status_code: 200, error: null, next_attempt_at: null });
    // Causal order, as received on the subscription.
    const at = (e: OpsEvent) => tap.events.indexOf(e);
    expect(at(started)).toBeLessThan(at(failed));
    expect(at(failed)).toBeLessThan(at(completed));
    expect(at(completed)).toBeLessThan(at(retrying));
    expect(at(retrying)).toBeLessThan(at(delivered));
    // Unique ids: tooling deduplicates on them.
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
  });

  it('announces a timed-out job, and a webhook that fails for good (failed, then exhausted)', async () => {
    const client = await call(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } });
    const api = (path: string, init: Parameters<typeof call>[2] = {}) => call(env.url, path, { token: client.body.token, ...init });
    const project = await api('/v1/projects', { json: { name: 'slow', callback_url: deadReceiver.url } });
    const batch = await api('/v1/batches', { json: { project_id: project.body.project_id, requests: [{ url: `${site.url}/slow/1` }] } });
    const batchId: string = batch.body.batch_id;
    expect((await api(`/v1/batches/${batchId}/run`, { method: 'POST' })).status).toBe(200);
    await eventually(async () => mine((e) => e.run_id === batchId && e.subject === OPS_SUBJECTS.webhookExhausted).length > 0, {
      what: 'webhook exhausted',
      timeoutMs: 40_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mine((e) => e.run_id === batchId).map((e) => e.subject)).toEqual([
      OPS_SUBJECTS.runStarted,
      OPS_SUBJECTS.jobTimedOut,
      OPS_SUBJECTS.runCompleted,
      OPS_SUBJECTS.webhookFailed,
      OPS_SUBJECTS.webhookExhausted,
    ]);
    const [, timedOut, completed, failed, exhausted] = mine((e) => e.run_id === batchId);
    expect(timedOut).toMatchObject({ status: 'timeout', job_status: 'timeout', error_type: 'timeout', credits: 0 });
    expect(completed).toMatchObject({ timeout_requests: 1, success_requests: 0, credits_charged: 0 });
    expect(failed).toMatchObject({ attempt: 1, status_code: 503 });
    expect(exhausted).toMatchObject({ attempt: 2, status_code: 503, next_attempt_at: null });
  });

  it('announces a browser closed when idle (recycled) and one that died under the pool (crashed)', async () => {
    const client = await call(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } });
    const render = () =>
      call(env.url, '/v1/sync/scrape', {
        token: client.body.token,
        json: { url: `${site.url}/browser`, browser: true, browser_type: 'light' },
      });
    const instance = `${os.hostname()}:${process.pid}`;
    const ofPool = (subject: string) => mine((e) => e.subject === subject && e.source.instance === instance);
    const recycledBefore = ofPool(OPS_SUBJECTS.browserRecycled).length;
    expect((await render()).status).toBe(200);
    await eventually(async () => ofPool(OPS_SUBJECTS.browserRecycled).length > recycledBefore, { what: 'idle recycle', timeoutMs: 20_000 });
    expect(ofPool(OPS_SUBJECTS.browserRecycled).at(-1)).toMatchObject({ browser_kind: 'light', reason: 'idle', pages_served: 1 });

    expect((await render()).status).toBe(200);
    const main = chromiumProcessesBelow().find((p) => p.main);
    expect(main).toBeDefined();
    process.kill(main!.pid, 'SIGKILL');
    await eventually(async () => ofPool(OPS_SUBJECTS.browserCrashed).length > 0, { what: 'browser-crashed' });
    expect(ofPool(OPS_SUBJECTS.browserCrashed)).toEqual([expect.objectContaining({ browser_kind: 'light', pages_in_flight: 0 })]);
  });

  it('announces a country proxy request for review and its decision, once each', async () => {
    const client = await call(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } });
    const clientId: string = client.body.client_id;
    expect(
      (await call(env.url, '/v1/proxy/request-country', { token: client.body.token, json: { country_code: 'DE', reason: 'prices' } }))
        .status,
    ).toBe(200);
    expect(
      (
        await call(env.url, `/v1/admin/proxy/requests/${clientId}/DE`, {
          token: env.adminToken,
          json: { decision: 'deny', note: 'not now' },
        })
      ).status,
    ).toBe(200);
    await eventually(async () => mine((e) => e.client_id === clientId).length >= 2, { what: 'proxy events' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mine((e) => e.client_id === clientId).map((e) => [e.subject, e.country])).toEqual([
      [OPS_SUBJECTS.countryProxyRequested, 'DE'],
      [OPS_SUBJECTS.countryProxyDecided, 'DE'],
    ]);
    expect(mine((e) => e.client_id === clientId)[1]).toMatchObject({ status: 'denied', note: 'not now' });
  });

  it('announces a finished viability test once, with its URLs per recommended strategy', async () => {
    const client = await call(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } });
    const started = await call(env.url, '/v1/async/viability-test', {
      token: client.body.token,
      json: { urls: [`${site.url}/p/v1`, `${site.url}/p/v2`], depth: 'quick' },
    });
    expect(started.status).toBe(202);
    const testId: string = started.body.run_id;
    await eventually(async () => mine((e) => e.test_id === testId).length > 0, { what: 'analysis-completed', timeoutMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = mine((e) => e.test_id === testId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ subject: OPS_SUBJECTS.viabilityCompleted, client_id: client.body.client_id, total_urls: 2 });
    const strategies = events[0].strategies as Record<string, number>;
    expect(Object.values(strategies).reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('prints the live events as JSON lines with npm run ops -- <filter>', async () => {
    const tail = spawn(process.execPath, [path.join(__dirname, '../../scripts/ops-tail.js'), 'proxy-approvals'], {
      env: { PATH: process.env.PATH ?? '', NATS_URL: TEST_NATS_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    tail.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    tail.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    try {
      await eventually(async () => err.includes('listening on'), { what: 'the tail to subscribe' });
      const client = await call(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } });
      await call(env.url, '/v1/proxy/request-country', { token: client.body.token, json: { country_code: 'FR' } });
      await call(env.url, '/v1/sync/scrape', { token: client.body.token, json: { url: `${site.url}/p/tail` } });
      await eventually(async () => out.includes(client.body.client_id), { what: 'the event line' });
      const lines = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as OpsEvent);
      expect(lines.every((l) => l.subject.startsWith('ops.proxy-approvals.'))).toBe(true);
      expect(lines.find((l) => l.client_id === client.body.client_id)).toMatchObject({
        subject: OPS_SUBJECTS.countryProxyRequested,
        event: 'proxy-approvals.country-request-created',
        country: 'FR',
      });
    } finally {
      tail.kill('SIGINT');
    }
  });

  // Last in this block: it stops the platform.
  it('announces every context stopping when the process shuts down', async () => {
    const instance = `${os.hostname()}:${process.pid}`;
    const before = mine((e) => e.source.instance === instance && e.event.endsWith('.service-stopping')).length;
    await env.stop();
    stopped = true;
    await eventually(
      async () =>
        mine((e) => e.source.instance === instance && e.event.endsWith('.service-stopping')).length - before >= BOUNDED_CONTEXTS.length,
      {
        what: 'service-stopping events',
      },
    );
    const stopping = mine((e) => e.source.instance === instance && e.event.endsWith('.service-stopping')).slice(before);
    expect(stopping.map((e) => e.source.service).sort()).toEqual(
      // Every bounded context, the gateway included: the one list (libs/contracts), so a new context is counted too.
      [...BOUNDED_CONTEXTS].sort(),
    );
    // The gateway stops taking requests first, then the contexts.
    expect(stopping[0].source.service).toBe('gateway');
    for (const e of stopping)
      expect(e).toMatchObject({ runtime: 'distributed', transport: 'nats', node_version: process.version, reason: 'shutdown' });
  });
});

describe('metrics, probes and the embedded runtime feeding NATS', () => {
  let env: InProcessPlatform;
  let site: Awaited<ReturnType<typeof startArticleSite>>;
  let receiver: Awaited<ReturnType<typeof startFlakyReceiver>>;
  const metricsToken = 'metrics_token_for_e2e_0123456789';
  let tap: Awaited<ReturnType<typeof tapOpsEvents>> | null = null;

  beforeAll(async () => {
    site = await startArticleSite();
    receiver = await startFlakyReceiver();
    if (distributedInfrastructureAvailable()) tap = await tapOpsEvents(TEST_NATS_URL);
    env = await startInProcessPlatform({
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiver.port}`,
      METRICS_TOKEN: metricsToken,
      WEBHOOK_RETRY_DELAYS: '1',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      ...(distributedInfrastructureAvailable() ? { OPS_NATS_URL: TEST_NATS_URL } : {}),
    });
  }, 120_000);

  afterAll(async () => {
    await env?.stop();
    await tap?.close();
    await site?.close();
    await receiver?.close();
  });

  const metrics = async (token = metricsToken) => {
    const res = await fetch(`${env.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return seriesOf(await res.text());
  };

  it('serves /metrics to METRICS_TOKEN and the administrator only', async () => {
    expect((await call(env.url, '/metrics')).status).toBe(401);
    expect((await call(env.url, '/metrics', { token: 'not_a_token_at_all_123456' })).status).toBe(401);
    expect((await call(env.url, '/metrics', { token: env.demoToken })).status).toBe(403);
    await metrics(metricsToken);
    await metrics(env.adminToken);
  });

  it('feeds every metric family, and keeps the label sets bounded under 1,000 distinct URLs', async () => {
    const client = await call(env.url, '/v1/admin/clients', {
      token: env.adminToken,
      json: { plan: 'enterprise', rate_limit_per_minute: 1_000_000 },
    });
    const token: string = client.body.token;
    // The registry is the process's: other platforms of this test process counted before this one.
    const before = await metrics();
    const grew = (after: Map<string, number>, name: string) => sumOf(after, name) - sumOf(before, name);
    const scrape = (url: string) => call(env.url, '/v1/sync/scrape', { token, json: { url } });
    // A batch with a webhook (batch jobs, credits, a failed then a sent webhook attempt).
    const project = await call(env.url, '/v1/projects', { token, json: { name: 'metrics', callback_url: receiver.url } });
    const batch = await call(env.url, '/v1/batches', {
      token,
      json: { project_id: project.body.project_id, requests: [1, 2, 3].map((i) => ({ url: `${site.url}/batch/${i}` })) },
    });
    await call(env.url, `/v1/batches/${batch.body.batch_id}/run`, { token, method: 'POST' });
    // One browser page (the pool's gauges) and unknown paths (the router's 404s).
    expect(
      (await call(env.url, '/v1/sync/scrape', { token, json: { url: `${site.url}/browser`, browser: true, browser_type: 'light' } }))
        .status,
    ).toBe(200);
    for (let i = 0; i < 20; i += 1) expect((await call(env.url, `/v1/nowhere/${i}`, { token })).status).toBe(404);

    for (let i = 0; i < 100; i += 1) expect((await scrape(`${site.url}/p/${i}?q=${i}`)).status).toBe(200);
    const after100 = await metrics();
    await eventually(async () => receiver.received.length >= 2, { what: 'the webhook, retried once', timeoutMs: 20_000 });

    // 900 more distinct URLs, 20 at a time.
    const pending = Array.from({ length: 900 }, (_, i) => `${site.url}/p/${100 + i}?q=${i}`);
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let url = pending.shift(); url; url = pending.shift()) expect((await scrape(url)).status).toBe(200);
      }),
    );
    for (let i = 20; i < 220; i += 1) await call(env.url, `/v1/nowhere/${i}`, { token });
    const after1000 = await metrics();

    const P = 'scrape_platform_';
    expect(grew(after1000, `${P}http_requests_total`)).toBeGreaterThan(1000);
    expect(grew(after1000, `${P}http_request_duration_seconds_count`)).toBeGreaterThan(1000);
    expect(grew(after1000, `${P}scrapes_total{mode="simple",outcome="success",error_type="none"}`)).toBeGreaterThanOrEqual(1000);
    expect(grew(after1000, `${P}scrapes_total{mode="browser"`)).toBeGreaterThan(0);
    expect(grew(after1000, `${P}scrape_duration_seconds_count`)).toBeGreaterThan(1000);
    expect(grew(after1000, `${P}credits_charged_total{source="sync"}`)).toBeGreaterThan(1000);
    expect(grew(after1000, `${P}credits_charged_total{source="batch"}`)).toBe(3);
    expect(grew(after1000, `${P}jobs_finished_total{status="completed",outcome="success"}`)).toBe(3);
    for (const phase of ['waiting', 'dispatched', 'running']) expect(after1000.has(`${P}jobs{status="${phase}"}`)).toBe(true);
    expect(after1000.has(`${P}job_queue_depth`)).toBe(true);
    expect(after1000.has(`${P}job_dispatch_lag_seconds`)).toBe(true);
    expect(grew(after1000, `${P}webhook_attempts_total{outcome="failed"}`)).toBe(1);
    expect(grew(after1000, `${P}webhook_attempts_total{outcome="sent"}`)).toBe(1);
    expect(after1000.has(`${P}browser_pool_browsers{kind="light"}`)).toBe(true);
    expect(after1000.has(`${P}browser_pool_pages_in_flight`)).toBe(true);
    expect(after1000.get(`${P}dependency_up{dependency="database"}`)).toBe(1);
    expect(after1000.get(`${P}dependency_up{dependency="in_process_bus"}`)).toBe(1);
    expect(grew(after1000, `${P}ops_events_published_total`)).toBeGreaterThan(0);
    expect(after1000.get('process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(after1000.get('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);

    // Bounded: 900 more URLs and 200 more unknown paths added no series, and no label names a URL or a client.
    const keys = (m: Map<string, number>) => [...m.keys()].filter((k) => k.startsWith(P)).sort();
    expect(keys(after1000)).toEqual(keys(after100));
    expect(keys(after1000).length).toBeLessThan(1000);
    const labelValues = keys(after1000).join('\n');
    expect(labelValues).not.toContain('/p/');
    expect(labelValues).not.toContain('/nowhere/');
    expect(labelValues).not.toContain(client.body.client_id);
    expect(labelValues).toContain('route="/v1/sync/scrape"');
    expect(labelValues).toContain('route="unmatched"');
  }, 240_000);

  (distributedInfrastructureAvailable() ? it : it.skip)(
    'copies its ops events to OPS_NATS_URL, so a one-process install feeds ops tooling',
    async () => {
      await eventually(
        async () => tap!.events.some((e) => e.subject === OPS_SUBJECTS.runCompleted && e.source.instance.endsWith(`:${process.pid}`)),
        {
          what: 'run-completed on NATS',
          timeoutMs: 20_000,
        },
      );
      const started = tap!.events.filter((e) => e.event === 'gateway.service-started' && e.source.instance.endsWith(`:${process.pid}`));
      expect(started.at(-1)).toMatchObject({ runtime: 'embedded', transport: 'in-process' });
    },
  );

  // Last: it spends this address's anonymous budget for the minute.
  it('answers the probes without a token and without counting them against the caller', async () => {
    expect(await call(env.url, '/livez')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await call(env.url, '/readyz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    // Past ANONYMOUS_RATE_LIMIT (120/min from one address, like a node's kubelet): never a 429.
    const statuses = await Promise.all(
      Array.from({ length: 150 }, (_, i) => fetch(`${env.url}/${i % 2 ? 'livez' : 'readyz'}`).then((r) => r.status)),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
    // While an anonymous call to another public route is now refused for the rest of the minute.
    const health = await Promise.all(Array.from({ length: 130 }, () => fetch(`${env.url}/v1/health/live`).then((r) => r.status)));
    expect(health).toContain(429);
  });
});
