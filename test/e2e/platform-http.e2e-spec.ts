import { MESSAGE_CONTEXTS, SUBJECTS } from '@lib/contracts';
import { QuotaExceededError } from '@lib/errors';
import { MessageBus } from '@lib/messaging';
import { PLAN_IDS } from '@lib/plans';
import { CreditGate } from '../../apps/gateway/src/credits/credit-gate';
import { RequestRateLimiter } from '../../apps/gateway/src/admission/request-rate-limiter';
import { ClientDirectory } from '../../apps/gateway/src/clients/client-directory';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { eventually, rateLimitForPolling } from './support/eventually';
import { expectUsageHeaders, http } from './support/http';
import { runtimesUnderTest } from './support/runtimes';

const runtimes = runtimesUnderTest('http');

/**
 * The platform end to end over HTTP on a real socket, once per runtime: the same behaviour is
 * required of the in-process transport with PGlite and of NATS with Postgres.
 * (processes.e2e-spec.ts covers the same runtime split into separate OS processes.)
 */
describe.each(runtimes)('platform over HTTP — $name', (runtime) => {
  let env: InProcessPlatform;
  let url: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform(prepared.env);
    url = env.url;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
  });

  async function createClient(body: Record<string, unknown>): Promise<{ client_id: string; token: string }> {
    const res = await http(url, '/v1/admin/clients', { token: env.adminToken, json: body });
    expect(res.status).toBe(201);
    return res.body;
  }

  describe('health and plans (no auth)', () => {
    it('reports the database, the transport and every context as ok', async () => {
      const res = await http(url, '/v1/health');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'ok',
        version: '0.1.0',
        runtime: runtime.mode,
        checks: { database: { status: 'ok' }, transport: { status: 'ok', kind: runtime.transport } },
      });
      expect(Object.keys(res.body.services).sort()).toEqual([...MESSAGE_CONTEXTS].sort());
      for (const service of Object.values(res.body.services) as Array<{ status: string }>) expect(service.status).toBe('ok');
      expectUsageHeaders(res);
    });

    it('lists every plan of spec 2.18 with price, credits, browser requests, rate limit and features', async () => {
      const res = await http(url, '/v1/plans');
      expect(res.status).toBe(200);
      expect(res.body.plans.map((p: { id: string }) => p.id)).toEqual([...PLAN_IDS]);
      expect(res.body.plans.find((p: { id: string }) => p.id === 'growth')).toMatchObject({
        price_usd_per_month: 69,
        credits_per_month: 50000,
        browser_requests_per_month: 10000,
        rate_limit_per_minute: 120,
      });
      expect(res.body.plans.find((p: { id: string }) => p.id === 'demo').features).not.toContain('country_proxies');
      expect(res.body.credit_system).toEqual({ simple_request: 1, browser_request: 5 });
    });
  });

  describe('authentication', () => {
    it.each([
      ['no token', undefined, 'missing_token'],
      ['an unknown token', 'sk_not_a_real_token_000000000000000', 'invalid_token'],
    ])('answers 401 to %s, with the usage headers', async (_label, token, code) => {
      const res = await http(url, '/v1/admin/clients', { token, json: { plan: 'free' } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.stringContaining('Bearer'), error_code: code });
      expectUsageHeaders(res);
    });

    it('checks the token before the route: an unknown path without a token is 401, with one 404', async () => {
      expect((await http(url, '/v1/nowhere')).status).toBe(401);
      const res = await http(url, '/v1/nowhere', { token: env.demoToken });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error_code: 'not_found' });
      expectUsageHeaders(res);
    });

    it('gives 403 to a non-admin on admin endpoints', async () => {
      const res = await http(url, '/v1/admin/clients', { token: env.demoToken, json: { plan: 'free' } });
      expect(res.status).toBe(403);
      expect(res.body.error_code).toBe('admin_only');
      expectUsageHeaders(res);
    });
  });

  describe('admin clients and tokens (operator contract §3)', () => {
    it('creates a client whose token works and is stored only as a hash', async () => {
      const created = await createClient({ client_id: 'acme-e2e', plan: 'starter', features: ['simple_requests'] });
      expect(created).toMatchObject({ client_id: 'acme-e2e', plan: 'starter', token: expect.stringMatching(/^sk_/) });
      const res = await http(url, '/v1/plans', { token: created.token });
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      expect(res.headers.get('x-quota-limit')).toBe('10000');
      const stored = await env.platform.gateway.get(ClientDirectory).find('acme-e2e');
      expect(stored).toMatchObject({ plan: 'starter', features: ['simple_requests'] });
    });

    it('refuses a duplicate client id with 409', async () => {
      await createClient({ client_id: 'dupe', plan: 'free' });
      const res = await http(url, '/v1/admin/clients', { token: env.adminToken, json: { client_id: 'dupe', plan: 'free' } });
      expect(res.status).toBe(409);
      expect(res.body.error_code).toBe('client_exists');
    });

    it('rotates a token: the old one stops working at once', async () => {
      const created = await createClient({ plan: 'free' });
      expect((await http(url, '/v1/nowhere', { token: created.token })).status).toBe(404);
      const rotated = await http(url, `/v1/admin/clients/${created.client_id}/rotate-token`, { method: 'POST', token: env.adminToken });
      expect(rotated.status).toBe(200);
      expect(rotated.body).toEqual({ client_id: created.client_id, token: expect.stringMatching(/^sk_/) });
      expect((await http(url, '/v1/nowhere', { token: created.token })).status).toBe(401);
      expect((await http(url, '/v1/nowhere', { token: rotated.body.token })).status).toBe(404);
      expect((await http(url, '/v1/admin/clients/nobody/rotate-token', { method: 'POST', token: env.adminToken })).body.error_code).toBe(
        'client_not_found',
      );
    });
  });

  describe('bad input never produces a 500', () => {
    it('lists every validation problem at once with its location (422)', async () => {
      const res = await http(url, '/v1/admin/clients', {
        token: env.adminToken,
        json: { plan: 'gold', features: ['teleport'], client_id: 'has space', rate_limit_per_minute: -1, surprise: true },
      });
      expect(res.status).toBe(422);
      const locs = res.body.detail.map((p: { loc: string[] }) => p.loc.join('.')).sort();
      expect(locs).toEqual(['body.client_id', 'body.features', 'body.plan', 'body.rate_limit_per_minute', 'body.surprise']);
      for (const problem of res.body.detail)
        expect(problem).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
      expectUsageHeaders(res);
    });

    it.each([
      ['malformed JSON', { body: '{"plan":', headers: { 'content-type': 'application/json' } }, 400, 'invalid_json'],
      ['an empty JSON body', { body: '', headers: { 'content-type': 'application/json' } }, 400, 'invalid_json'],
      [
        'a prototype-poisoning body',
        { body: '{"__proto__":{"admin":true},"plan":"free"}', headers: { 'content-type': 'application/json' } },
        400,
        'invalid_json',
      ],
      ['a text body', { body: 'plan=free', headers: { 'content-type': 'text/plain' } }, 415, 'unsupported_media_type'],
      [
        'a form body',
        { body: 'plan=free', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        415,
        'unsupported_media_type',
      ],
      [
        'a body over the size limit',
        { body: JSON.stringify({ plan: 'x'.repeat(6 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } },
        413,
        'payload_too_large',
      ],
    ])('answers %s with the contract error body', async (_label, init, status, code) => {
      const res = await http(url, '/v1/admin/clients', { method: 'POST', token: env.adminToken, ...init });
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ detail: expect.any(String), error_code: code });
      expectUsageHeaders(res);
    });

    it.each([
      ['an array', [1, 2]],
      ['a string', 'free'],
      ['null', null],
      ['a number', 7],
    ])('answers a JSON body that is %s with 422', async (_label, value) => {
      const res = await http(url, '/v1/admin/clients', {
        token: env.adminToken,
        body: JSON.stringify(value),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body']);
    });

    it('answers wrong types in every field with 422, not 500', async () => {
      const res = await http(url, '/v1/admin/clients', {
        token: env.adminToken,
        json: { plan: 7, features: 'all', client_id: { a: 1 }, monthly_credits: '5' },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail.length).toBeGreaterThanOrEqual(4);
    });
  });

  describe('rate limits and quotas', () => {
    it('enforces the plan rate limit with 429 and Retry-After; X-RateLimit-Reset is a Unix timestamp', async () => {
      const client = await createClient({ plan: 'free' });
      const results = [];
      for (let i = 0; i < 12; i += 1) results.push(await http(url, '/v1/plans', { token: client.token }));
      expect(results.map((r) => r.status)).toEqual([...Array(10).fill(200), 429, 429]);
      expect(results.map((r) => r.headers.get('x-ratelimit-remaining')).slice(0, 10)).toEqual([
        '9',
        '8',
        '7',
        '6',
        '5',
        '4',
        '3',
        '2',
        '1',
        '0',
      ]);
      const limited = results[10];
      expect(limited.body).toEqual({ detail: expect.stringContaining('10 requests per minute'), error_code: 'rate_limit_exceeded' });
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      for (const r of results) expectUsageHeaders(r);
    });

    it('refuses a caller over its limit from memory: no client lookup, counter or quota call, and the others go on', async () => {
      const flooder = await createClient({ plan: 'free' });
      const other = await createClient({ plan: 'free' });
      for (let i = 0; i < 10; i += 1) expect((await http(url, '/v1/plans', { token: flooder.token })).status).toBe(200);
      expect((await http(url, '/v1/plans', { token: flooder.token })).status).toBe(429);
      // Spies on the real providers: what each further refusal costs.
      const gateway = env.platform.gateway;
      const lookups = jest.spyOn(gateway.get(ClientDirectory), 'authenticate');
      const counters = jest.spyOn(gateway.get(RequestRateLimiter), 'hit');
      const quotas = jest.spyOn(gateway.get(CreditGate), 'quotaOf');
      try {
        const refusals = await Promise.all(Array.from({ length: 200 }, () => http(url, '/v1/plans', { token: flooder.token })));
        expect(new Set(refusals.map((r) => r.status))).toEqual(new Set([429]));
        for (const r of refusals) {
          expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
          expect(r.body.error_code).toBe('rate_limit_exceeded');
          expectUsageHeaders(r);
        }
        expect([lookups.mock.calls.length, counters.mock.calls.length, quotas.mock.calls.length]).toEqual([0, 0, 0]);
        // Another client is looked up and served as usual.
        expect((await http(url, '/v1/plans', { token: other.token })).status).toBe(200);
        expect(lookups).toHaveBeenCalledTimes(1);
      } finally {
        jest.restoreAllMocks();
      }
    });

    it('shows the ledger in the quota headers and refuses a hold the quota cannot cover', async () => {
      const created = await createClient({ plan: 'free', monthly_credits: 50 });
      const gate = env.platform.gateway.get(CreditGate);
      const client = (await env.platform.gateway.get(ClientDirectory).find(created.client_id))!;
      const hold = await gate.hold(client, 5);
      await gate.charge(client, hold, 5, `e2e-${created.client_id}`, 'browser', {
        request_id: 'e2e',
        domain: 'example.com',
        status_code: 200,
        block_reason: null,
        proxy: null,
        attempts: 1,
        success: true,
      });
      const res = await http(url, '/v1/plans', { token: created.token });
      expect([
        res.headers.get('x-quota-limit'),
        res.headers.get('x-quota-used'),
        res.headers.get('x-quota-remaining'),
        res.headers.get('x-credits-charged'),
      ]).toEqual(['50', '5', '45', '0']);
      await expect(gate.hold(client, 46)).rejects.toBeInstanceOf(QuotaExceededError);
      const held = await gate.hold(client, 45);
      expect((await http(url, '/v1/plans', { token: created.token })).headers.get('x-quota-remaining')).toBe('0');
      gate.release(held);
      expect((await http(url, '/v1/plans', { token: created.token })).headers.get('x-quota-remaining')).toBe('45');
    });

    it('reflects charges made elsewhere (e.g. by batch jobs) through billing-meter events', async () => {
      const created = await createClient({ plan: 'free', monthly_credits: 100, rate_limit_per_minute: rateLimitForPolling(50) });
      expect((await http(url, '/v1/plans', { token: created.token })).headers.get('x-quota-used')).toBe('0');
      const bus = env.platform.gateway.get(MessageBus);
      const hold = await bus.request(SUBJECTS.billing.creditsReserve, {
        client_id: created.client_id,
        monthly_credits: 100,
        credits: 5,
        ttl_seconds: 60,
      });
      await bus.request(SUBJECTS.billing.creditsCommit, {
        reservation_id: hold.reservation_id!,
        credits: 5,
        charge_key: `elsewhere-${created.client_id}`,
        mode: 'browser',
      });
      await eventually(async () => (await http(url, '/v1/plans', { token: created.token })).headers.get('x-quota-used') === '5', {
        timeoutMs: 15_000,
        what: 'x-quota-used 5',
      });
    });

    it('reports an unlimited quota as X-Quota-Limit 0', async () => {
      const res = await http(url, '/v1/plans', { token: env.adminToken });
      expect(res.headers.get('x-quota-limit')).toBe('0');
    });
  });

  describe('OpenAPI description', () => {
    it('is served at /v1/openapi.json with version 0.1.0 and covers every endpoint', async () => {
      const res = await http(url, '/v1/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.info.version).toBe('0.1.0');
      const documented = Object.entries(res.body.paths as Record<string, object>).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      );
      // Fastify's wildcard (GET /v1/read/*) is the document's trailing {path}.
      const registered = env.platform.routes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}')}`);
      expect(documented.sort()).toEqual(registered.sort());
      expect(documented).toContain('GET /v1/openapi.json');
      expect(documented).toContain('POST /v1/admin/clients/{client_id}/rotate-token');
      // Every $ref points at a schema that exists.
      const refs = [...JSON.stringify(res.body).matchAll(/"\$ref":"#\/components\/(\w+)\/([^"]+)"/g)].map((m) => [m[1], m[2]] as const);
      for (const [kind, name] of new Set(refs)) expect(Object.keys(res.body.components[kind])).toContain(name);
      expect(res.body.paths['/v1/admin/clients'].post.responses['201'].headers['X-RateLimit-Reset']).toBeDefined();
      expect(res.body.paths['/v1/admin/clients'].post.responses['422']).toBeDefined();
    });
  });

  it('echoes a client-supplied X-Request-Id and makes one up otherwise', async () => {
    expect((await http(url, '/v1/plans', { headers: { 'x-request-id': 'trace-123' } })).headers.get('x-request-id')).toBe('trace-123');
    expect((await http(url, '/v1/plans')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await http(url, '/v1/plans', { headers: { 'x-request-id': 'bad id with spaces' } })).headers.get('x-request-id')).not.toContain(
      ' ',
    );
  });
});
