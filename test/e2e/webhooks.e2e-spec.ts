import { DATABASE, type DatabaseConnection } from '@lib/persistence';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { distributedInfrastructureAvailable, TEST_NATS_URL, TEST_WEBHOOK_SECRET_KEYS } from '../support/infrastructure';
import { createTestDatabase } from '../support/postgres-database';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { http as call, type HttpResult } from './support/http';
import { runtimesUnderTest } from './support/runtimes';
import { eventually, rateLimitForPolling } from './support/eventually';
import { buildDist, startService, waitFor } from './support/service-process';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/** The receiver's own check, written here independently of the service's code. */
function signatureOf(secret: string, timestamp: string, raw: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${raw}`).digest('hex')}`;
}

const PUBLIC_BASE_URL = 'https://api.example.test';

/**
 * Run-completion webhooks end to end over HTTP with a local receiver, in both runtimes: the
 * signed body of spec 6, retries on the schedule with callback_status telling the truth, final
 * failure on a 4xx, secret rotation, the delivery log and redelivery, and the SSRF guard on
 * callback_url at save and at delivery time.
 */
describe.each(runtimesUnderTest('webhooks'))('run-completion webhooks — $name', (runtime) => {
  let site: FixtureSite;
  let receiver: WebhookReceiver;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    site = await startFixtureSite();
    receiver = await startWebhookReceiver(400);
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiver.port}`,
      WEBHOOK_RETRY_DELAYS: '1,1,1',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      PUBLIC_BASE_URL,
      BROWSER_WARM: 'false',
    });
  });
  // Each test has its own client: no test can spend another's rate limit or see its secret.
  beforeEach(async () => {
    token = (
      await call(env.url, '/v1/admin/clients', {
        token: env.adminToken,
        json: { plan: 'pro', rate_limit_per_minute: rateLimitForPolling(50) },
      })
    ).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await receiver?.close();
    await site?.close();
  });

  const api = (p: string, init: Parameters<typeof call>[2] = {}) => call(env.url, p, { token, ...init });
  const runWithCallback = async (callbackUrl: string) => {
    const collection = await api('/v1/async/collections', {
      json: { name: 'hooked', callback_url: callbackUrl, requests: [{ url: `${site.url}/page` }, { url: `${site.url}/status/404` }] },
    });
    expect(collection.status).toBe(201);
    const run = await api(`/v1/async/collections/${collection.body.id}/run`, { method: 'POST' });
    return {
      collectionId: collection.body.id as string,
      run: run.body,
      runPath: `/v1/async/collections/${collection.body.id}/runs/${run.body.run_id}`,
    };
  };
  const until = (probe: () => Promise<boolean>) => eventually(probe, { timeoutMs: 30_000 });

  it('POSTs the signed body of spec 6 once, and the run says sent', async () => {
    const secret = (await api('/v1/webhooks/secret')).body.secret;
    expect(secret).toMatch(/^whsec_/);
    expect((await api('/v1/webhooks/secret')).body.secret).toBe(secret);
    const { collectionId, run, runPath } = await runWithCallback(`${receiver.url}/ok?case=signed`);
    await until(async () => (await api(runPath)).body.callback_status === 'sent');
    const deliveries = receiver.received.filter((r) => r.path === '/ok?case=signed');
    expect(deliveries).toHaveLength(1);
    const [hit] = deliveries;
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['x-service-signature']).toBe(signatureOf(secret, String(hit.headers['x-service-timestamp']), hit.raw));
    expect(Math.abs(Number(hit.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    const body = JSON.parse(hit.raw);
    expect(body).toEqual({
      event: 'run.completed',
      run_id: run.run_id,
      collection_id: collectionId,
      status: 'completed',
      total_requests: 2,
      success_requests: 1,
      failed_requests: 1,
      timeout_requests: 0,
      cancelled_requests: 0,
      job_ids: run.job_ids,
      results_url: `${PUBLIC_BASE_URL}${runPath}`,
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    const log = (await api(`${runPath}/webhook-deliveries`)).body;
    expect(log).toMatchObject({
      delivery_id: hit.headers['x-service-delivery-id'],
      status: 'sent',
      next_attempt_at: null,
      attempts: [{ attempt: 1, manual: false, status_code: 200, error: null, outcome: 'sent' }],
    });
    expect(log.attempts[0].latency_ms).toBeGreaterThanOrEqual(350);
  });

  it('retries a 429 and a 503 on the schedule, with callback_status pending → failed → retrying → sent', async () => {
    receiver.script('flaky', [429, 503, 200]);
    const { runPath } = await runWithCallback(`${receiver.url}/script/flaky`);
    const seen: string[] = [];
    // 'retrying' lasts one 400 ms answer: a fixed 50 ms poll (the client's limit is sized for it).
    await eventually(
      async () => {
        const status = (await api(runPath)).body.callback_status;
        if (seen[seen.length - 1] !== status) seen.push(status);
        return status === 'sent';
      },
      { timeoutMs: 30_000, factor: 1, what: 'callback_status sent' },
    );
    expect(seen).toEqual(['pending', 'failed', 'retrying', 'failed', 'retrying', 'sent']);
    const hits = receiver.received.filter((r) => r.path === '/script/flaky');
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.headers['x-service-delivery-id'])).size).toBe(1);
    expect(hits.map((h) => h.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
    // The schedule: about one second between attempts (WEBHOOK_RETRY_DELAYS=1,1,1), after a 400 ms answer.
    expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(1300);
    const log = (await api(`${runPath}/webhook-deliveries`)).body;
    expect(log.attempts.map((a: any) => [a.attempt, a.status_code, a.outcome])).toEqual([
      [1, 429, 'failed'],
      [2, 503, 'failed'],
      [3, 200, 'sent'],
    ]);
  });

  it('gives up after the last retry, and ends a 4xx at once without retrying', async () => {
    receiver.script('down', [500]);
    const down = await runWithCallback(`${receiver.url}/script/down`);
    receiver.script('gone', [410]);
    const gone = await runWithCallback(`${receiver.url}/script/gone`);
    await until(async () => (await api(`${down.runPath}/webhook-deliveries`)).body.attempts?.length === 4);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received.filter((r) => r.path === '/script/down')).toHaveLength(4); // 1 + 3 retries, no more
    expect((await api(down.runPath)).body.callback_status).toBe('failed');
    expect((await api(`${down.runPath}/webhook-deliveries`)).body).toMatchObject({ status: 'failed', next_attempt_at: null });
    expect(receiver.received.filter((r) => r.path === '/script/gone')).toHaveLength(1);
    expect((await api(gone.runPath)).body.callback_status).toBe('failed');
    expect((await api(`${gone.runPath}/webhook-deliveries`)).body.attempts).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 410, error: 'HTTP 410', outcome: 'failed_final' }),
    ]);

    // Redeliver on demand: one more attempt, same delivery id.
    receiver.script('gone', [200]);
    const again = await api(`${gone.runPath}/webhook-deliveries/redeliver`, { method: 'POST' });
    expect(again.status).toBe(202);
    await until(async () => (await api(gone.runPath)).body.callback_status === 'sent');
    const hits = receiver.received.filter((r) => r.path === '/script/gone');
    expect(hits).toHaveLength(2);
    expect(hits[1].headers['x-service-delivery-id']).toBe(hits[0].headers['x-service-delivery-id']);
    expect((await api(`${gone.runPath}/webhook-deliveries`)).body.attempts[1]).toMatchObject({ attempt: 2, manual: true, outcome: 'sent' });
  });

  it('signs with the new secret after a rotation', async () => {
    const before = (await api('/v1/webhooks/secret')).body.secret;
    const rotated = await api('/v1/webhooks/secret/rotate', { method: 'POST' });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(before);
    expect((await api('/v1/webhooks/secret')).body.secret).toBe(rotated.body.secret);
    // At rest the secret is sealed (AES-256-GCM under the operator's key), never in clear.
    const stored = await env.platform.gateway
      .get<symbol, DatabaseConnection>(DATABASE)
      .sql.query<{ secret: string }>('select secret from webhook_secrets');
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) {
      expect(row.secret).toMatch(/^sealed\.v1:/);
      expect(row.secret).not.toContain(rotated.body.secret.slice(6));
    }
    const { runPath } = await runWithCallback(`${receiver.url}/ok?case=rotated`);
    await until(async () => (await api(runPath)).body.callback_status === 'sent');
    const [hit] = receiver.received.filter((r) => r.path === '/ok?case=rotated');
    const ts = String(hit.headers['x-service-timestamp']);
    expect(hit.headers['x-service-signature']).toBe(signatureOf(rotated.body.secret, ts, hit.raw));
    expect(hit.headers['x-service-signature']).not.toBe(signatureOf(before, ts, hit.raw));
  });

  it('refuses a non-public callback_url when saved, and does not deliver to one at delivery time', async () => {
    const refused = await api('/v1/async/collections', {
      json: { name: 'private-hook', callback_url: 'http://10.0.0.5/hook', requests: [{ url: `${site.url}/page` }] },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error_code: 'target_blocked', reason: 'private_ip' });
    const ok = (await api('/v1/async/collections', { json: { name: 'hook-later', requests: [{ url: `${site.url}/page` }] } })).body.id;
    const update = await api(`/v1/async/collections/${ok}`, { method: 'PUT', json: { callback_url: 'http://localhost:9/hook' } });
    expect(update.status).toBe(422);

    // A callback saved before the guard (or whose DNS changed since): checked again when sending.
    const db = env.platform.gateway.get<symbol, DatabaseConnection>(DATABASE);
    await db.sql.query('update collections set callback_url = $2 where id = $1', [ok, 'http://192.168.7.7/hook']);
    const run = (await api(`/v1/async/collections/${ok}/run`, { method: 'POST' })).body;
    const runPath = `/v1/async/collections/${ok}/runs/${run.run_id}`;
    let log: HttpResult | null = null;
    await until(async () => {
      log = await api(`${runPath}/webhook-deliveries`);
      return log.status === 200 && log.body.attempts.length === 1;
    });
    expect(log!.body.attempts[0]).toMatchObject({ outcome: 'blocked', status_code: null, error: expect.stringMatching(/private_ip/) });
    expect((await api(runPath)).body.callback_status).toBe('failed');
  });

  it('answers 404 for the delivery log of a run without a webhook', async () => {
    const collection = (await api('/v1/async/collections', { json: { name: 'no-hook', requests: [{ url: `${site.url}/page` }] } })).body.id;
    const run = (await api(`/v1/async/collections/${collection}/run`, { method: 'POST' })).body;
    const res = await api(`/v1/async/collections/${collection}/runs/${run.run_id}/webhook-deliveries`);
    expect(res.status).toBe(404);
    expect(res.body.error_code).toBe('webhook_not_found');
  });
});

/**
 * The schedule lives in the database: a webhook waiting for its retry when the platform stops is
 * delivered once after it starts again.
 */
describe('a webhook retry across a restart of webhook-sender (embedded platform)', () => {
  it('delivers once after the restart', async () => {
    const site = await startFixtureSite();
    const receiver = await startWebhookReceiver();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-restart-'));
    const env = {
      DATA_DIR: dataDir,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiver.port}`,
      WEBHOOK_RETRY_DELAYS: '3',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      BROWSER_WARM: 'false',
      ADMIN_TOKEN: 'adm_webhook_restart_token_01',
      DEMO_TOKEN: 'demo_webhook_restart_token_1',
    };
    try {
      const first = await startInProcessPlatform(env);
      const token = (await call(first.url, '/v1/admin/clients', { token: first.adminToken, json: { plan: 'pro' } })).body.token;
      receiver.script('restart', [503, 200]);
      const collection = (
        await call(first.url, '/v1/async/collections', {
          token,
          json: { name: 'r', callback_url: `${receiver.url}/script/restart`, requests: [{ url: `${site.url}/page` }] },
        })
      ).body.id;
      const run = (await call(first.url, `/v1/async/collections/${collection}/run`, { token, method: 'POST' })).body;
      const runPath = `/v1/async/collections/${collection}/runs/${run.run_id}`;
      await eventually(async () => (await call(first.url, runPath, { token })).body.callback_status === 'failed', {
        timeoutMs: 30_000,
        maxMs: 200,
      });
      await first.stop(); // the retry is due in 3 s

      const second = await startInProcessPlatform(env);
      try {
        await eventually(async () => (await call(second.url, runPath, { token })).body.callback_status === 'sent', { timeoutMs: 30_000 });
        expect((await call(second.url, runPath, { token })).body.callback_status).toBe('sent');
        await new Promise((r) => setTimeout(r, 500));
        expect(receiver.received.filter((r) => r.path === '/script/restart')).toHaveLength(2);
        const log = (await call(second.url, `${runPath}/webhook-deliveries`, { token })).body;
        expect(log.attempts.map((a: any) => a.outcome)).toEqual(['failed', 'sent']);
      } finally {
        await second.stop();
      }
    } finally {
      await receiver.close();
      await site.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/**
 * Two webhook-sender replicas (this process's and a separate OS process) polling the same outbox:
 * every webhook arrives exactly once.
 */
(distributedInfrastructureAvailable() ? describe : describe.skip)('two webhook-sender replicas (NATS + Postgres)', () => {
  it('never deliver the same attempt twice', async () => {
    buildDist();
    const site = await startFixtureSite();
    const receiver = await startWebhookReceiver(100);
    const database = await createTestDatabase('webhook-replicas');
    const shared = {
      NATS_URL: TEST_NATS_URL,
      DATABASE_URL: database.url,
      WEBHOOK_SECRET_KEYS: TEST_WEBHOOK_SECRET_KEYS,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiver.port}`,
      WEBHOOK_POLL_INTERVAL_MS: '50',
      BROWSER_WARM: 'false',
    };
    let env: InProcessPlatform | null = null;
    let replica: ReturnType<typeof startService> | null = null;
    try {
      env = await startInProcessPlatform(shared);
      replica = startService('webhook-sender', { ...shared, LOG_LEVEL: 'info' });
      await waitFor('the second webhook-sender', async () => replica!.output().includes('webhook-sender started'), [replica], 60_000);
      const url = env.url;
      const token = (await call(url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } })).body.token;
      const runs: string[] = [];
      for (let i = 0; i < 12; i += 1) {
        const collection = (
          await call(url, '/v1/async/collections', {
            token,
            json: { name: `replicas-${i}`, callback_url: `${receiver.url}/ok?replicas=${i}`, requests: [{ url: `${site.url}/page?${i}` }] },
          })
        ).body.id;
        runs.push(
          `/v1/async/collections/${collection}/runs/${(await call(url, `/v1/async/collections/${collection}/run`, { token, method: 'POST' })).body.run_id}`,
        );
      }
      await waitFor(
        'every webhook to be sent',
        async () => {
          const statuses = await Promise.all(runs.map(async (p) => (await call(url, p, { token })).body.callback_status));
          return statuses.every((s) => s === 'sent');
        },
        [replica],
        60_000,
      );
      await new Promise((r) => setTimeout(r, 500));
      const hits = receiver.received.filter((r) => r.path.startsWith('/ok?replicas='));
      expect(hits).toHaveLength(12);
      expect(new Set(hits.map((h) => h.headers['x-service-delivery-id'])).size).toBe(12);
    } finally {
      await replica?.stop();
      await env?.stop();
      await database.drop();
      await receiver.close();
      await site.close();
    }
  });
});
