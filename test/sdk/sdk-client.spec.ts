import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createScrapingClient, ScrapingApiError } from '../../sdk/src';

/**
 * The SDK's transport rules against a real HTTP server that answers as the API does when it is
 * busy: 429/503 with Retry-After are waited out (a bounded number of times), a Retry-After beyond
 * the client's patience is thrown at once, and the body of a retried POST goes out every time.
 */
describe('ScrapingClient transport', () => {
  let server: http.Server;
  let baseUrl: string;
  const script: Array<{ status: number; retryAfter?: string; body: unknown }> = [];
  const seen: Array<{ at: number; body: string; key: string | undefined }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          at: Date.now(),
          body: Buffer.concat(chunks).toString('utf8'),
          key: req.headers['idempotency-key'] as string | undefined,
        });
        const next = script.length > 1 ? script.shift()! : script[0]!;
        res
          .writeHead(next.status, { 'content-type': 'application/json', ...(next.retryAfter ? { 'retry-after': next.retryAfter } : {}) })
          .end(JSON.stringify(next.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    script.length = 0;
    seen.length = 0;
  });

  const created = {
    id: '11111111-1111-4111-8111-111111111111',
    name: 'c',
    message: 'ok',
    duplicates_skipped: 0,
    blocked_urls: [],
    invalid_items: [],
    duplicate_urls: [],
  };

  it('waits out 429 and 503 as Retry-After says, resending the same body and Idempotency-Key', async () => {
    script.push({ status: 429, retryAfter: '1', body: { detail: 'slow down', error_code: 'rate_limit_exceeded' } });
    script.push({ status: 503, retryAfter: '1', body: { detail: 'busy', error_code: 'service_unavailable' } });
    script.push({ status: 201, body: created });
    const client = createScrapingClient({ baseUrl, token: 't' });
    const started = Date.now();
    const result = await client.createCollection({ name: 'c', requests: [{ url: 'https://example.com/' }] });
    expect(result.collection.id).toBe(created.id);
    expect(seen).toHaveLength(3);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    expect(JSON.parse(seen[0]!.body)).toEqual({ name: 'c', requests: [{ url: 'https://example.com/' }] });
    expect(new Set(seen.map((s) => s.key))).toEqual(new Set([result.idempotencyKey]));
  });

  it('throws at once when Retry-After is beyond its patience (a spent monthly quota), with the wait in the error', async () => {
    script.push({ status: 429, retryAfter: '86400', body: { detail: 'quota', error_code: 'quota_exceeded' } });
    const client = createScrapingClient({ baseUrl, token: 't' });
    const error = await client.scrape({ url: 'https://example.com/' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScrapingApiError);
    expect([
      (error as ScrapingApiError).status,
      (error as ScrapingApiError).errorCode,
      (error as ScrapingApiError).retryAfterSeconds,
    ]).toEqual([429, 'quota_exceeded', 86400]);
    expect(seen).toHaveLength(1);
  });

  it('gives up after maxRetries and reports the last answer', async () => {
    script.push({ status: 429, retryAfter: '1', body: { detail: 'slow down', error_code: 'rate_limit_exceeded' } });
    const client = createScrapingClient({ baseUrl, token: 't', maxRetries: 1 });
    const error = await client.scrape({ url: 'https://example.com/' }).catch((e: unknown) => e);
    expect((error as ScrapingApiError).errorCode).toBe('rate_limit_exceeded');
    expect(seen).toHaveLength(2);
  });

  it('reads error_code from the job-result 404 object and from the validation list', async () => {
    script.push({
      status: 404,
      body: { detail: { error_code: 'result_expired', message: 'gone', completed_at: '2026-11-20T10:00:00.000', age_hours: 80 } },
    });
    const client = createScrapingClient({ baseUrl, token: 't' });
    const expired = await client.jobResult('c', 'r', 'j').catch((e: unknown) => e);
    expect([(expired as ScrapingApiError).errorCode, (expired as ScrapingApiError).message]).toEqual([
      'result_expired',
      '404 result_expired: gone',
    ]);
    script.length = 0;
    script.push({ status: 422, body: { detail: [{ loc: ['body', 'url'], msg: 'url must be a URL', type: 'string_type' }] } });
    const invalid = await client.scrape({ url: 'x' }).catch((e: unknown) => e);
    expect((invalid as ScrapingApiError).errorCode).toBe('validation_error');
    expect((invalid as ScrapingApiError).problems).toEqual([{ loc: ['body', 'url'], msg: 'url must be a URL', type: 'string_type' }]);
  });
});
