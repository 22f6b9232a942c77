import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { http } from './support/http';

/**
 * The HTTP edge's security posture (docs/security.md): security headers on every response, CORS
 * closed unless the operator opens it to named origins, a separate budget for administrator
 * routes, and client-chosen request ids never reflected unless they are plain tokens.
 */
describe('security at the HTTP edge (embedded platform)', () => {
  let closed: InProcessPlatform;
  let open: InProcessPlatform;

  beforeAll(async () => {
    closed = await startInProcessPlatform({ BROWSER_WARM: 'false' });
    open = await startInProcessPlatform({
      BROWSER_WARM: 'false',
      CORS_ORIGINS: 'https://app.example.com',
      ADMIN_RATE_LIMIT: '5',
      ANONYMOUS_RATE_LIMIT: '4',
    });
  });
  afterAll(async () => {
    await closed?.stop();
    await open?.stop();
  });

  it('sends the security headers on successes and on every kind of error', async () => {
    const responses = [
      await http(closed.url, '/v1/plans'),
      await http(closed.url, '/v1/sync/billing'),
      await http(closed.url, '/v1/nowhere', { token: closed.demoToken }),
      await http(closed.url, '/v1/sync/scrape', { token: closed.demoToken, json: { url: 5 } }),
      await http(closed.url, '/v1/sync/scrape', { token: closed.demoToken, body: '{', headers: { 'content-type': 'application/json' } }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 401, 404, 422, 400]);
    for (const res of responses) {
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'",
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=31536000/);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('keeps CORS closed by default and opens it only to the configured origins', async () => {
    const preflight = (url: string, origin: string) =>
      fetch(`${url}/v1/sync/scrape`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
    const closedPreflight = await preflight(closed.url, 'https://app.example.com');
    expect(closedPreflight.headers.get('access-control-allow-origin')).toBeNull();

    const allowed = await preflight(open.url, 'https://app.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('authorization');
    const other = await preflight(open.url, 'https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // An actual cross-origin call still needs its token.
    const call = await http(open.url, '/v1/sync/billing', { headers: { origin: 'https://app.example.com' } });
    expect(call.status).toBe(401);
    expect(call.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(call.headers.get('access-control-expose-headers')).toContain('x-ratelimit-remaining');
  });

  it("gives administrator routes their own budget, leaving the admin client's other calls alone", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1)
      statuses.push((await http(open.url, '/v1/admin/clients', { token: open.adminToken, json: { plan: 'free' } })).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429]);
    const limited = await http(open.url, '/v1/admin/proxy/requests', { token: open.adminToken });
    expect(limited.status).toBe(429);
    expect(limited.body.error_code).toBe('rate_limit_exceeded');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await http(open.url, '/v1/plans', { token: open.adminToken })).status).toBe(200);
  });

  it('throttles token guessing per IP: calls without a valid token share the anonymous budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1)
      statuses.push((await http(open.url, '/v1/sync/billing', { token: `sk_guess_${i}_${'x'.repeat(20)}` })).status);
    // Budget 4 a minute per IP (earlier tests in this file spent some of it): 401s, then only 429s.
    const firstLimited = statuses.indexOf(429);
    expect(firstLimited).toBeGreaterThan(0);
    expect(firstLimited).toBeLessThanOrEqual(4);
    expect(statuses.slice(0, firstLimited).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(firstLimited).every((s) => s === 429)).toBe(true);
    // A valid token is not held back by the guesses.
    expect((await http(open.url, '/v1/plans', { token: open.demoToken })).status).toBe(200);
  });

  it('reflects a client X-Request-Id only when it is a plain token', async () => {
    for (const hostile of ['<script>alert(1)</script>', 'a'.repeat(200), 'x y', 'id"; drop', '%0d%0aSet-Cookie: a=b']) {
      const res = await http(closed.url, '/v1/plans', { headers: { 'x-request-id': hostile } });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect((await http(closed.url, '/v1/plans', { headers: { 'x-request-id': 'trace.42:a-b_c' } })).headers.get('x-request-id')).toBe(
      'trace.42:a-b_c',
    );
  });
});
