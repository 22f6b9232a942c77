import { createScrapingClient, ScrapingApiError, type ScrapingClient, verifyWebhook, WebhookVerificationError } from '../../sdk/src';
import { contractCheckedFetch } from '../support/api-contract';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { http as call } from './support/http';
import { rateLimitForPolling } from './support/eventually';
import { runtimesUnderTest } from './support/runtimes';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

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
});
