import { jobOutcomeOf } from '@lib/contracts';
import { DATABASE, type DatabaseConnection } from '@lib/persistence';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { eventually, rateLimitForPolling } from './support/eventually';
import { http, type HttpResult } from './support/http';
import { runtimesUnderTest } from './support/runtimes';
import { MovableClock } from '../support/movable-clock';

/** A clock the test moves forward (retention), instead of sleeping through 48 hours. */

const HOUR = 3_600_000;

/**
 * Asynchronous batches end to end over HTTP, in both runtimes: collections with per-item
 * validation, Idempotency-Key under truly concurrent requests, runs with the spec's
 * classification and counters, the jobs listing drained through cursors exactly once, results of
 * any size, and retention with a moved clock.
 */
describe.each(runtimesUnderTest('batches'))('asynchronous batches — $name', (runtime) => {
  let site: FixtureSite;
  let env: InProcessPlatform;
  let url: string;
  let token: string;
  let otherToken: string;
  let cleanup: () => Promise<void> = async () => undefined;
  const clock = new MovableClock();

  beforeAll(async () => {
    site = await startFixtureSite();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform(
      {
        ...prepared.env,
        TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
        JOB_WORKER_CONCURRENCY: '32',
        // 15 s, not 8: on today's CI machine the embedded 1,000-job run had 2 fast-page jobs past
        // 8 s in most clean runs, the landed code too (the single-threaded embedded database and
        // 32 jobs at once). Seen and left for the performance issue; the too-slow job still ends
        // as a worker-level timeout.
        JOB_MAX_RUNTIME_SECONDS: '15',
        JOB_SWEEP_INTERVAL_MS: '300',
        RETENTION_SWEEP_INTERVAL_SECONDS: '1',
        BROWSER_WARM: 'false',
      },
      { clock },
    );
    url = env.url;
    token = (
      await http(url, '/v1/admin/clients', {
        token: env.adminToken,
        json: { plan: 'scale', client_id: 'batch-a', rate_limit_per_minute: rateLimitForPolling(50) },
      })
    ).body.token;
    otherToken = (await http(url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'starter', client_id: 'batch-b' } })).body
      .token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const api = (path: string, init: Parameters<typeof http>[2] = {}) => http(url, path, { token, ...init });
  const createCollection = (body: unknown, headers: Record<string, string> = {}, as = token) =>
    http(url, '/v1/async/collections', { token: as, json: body, headers });
  const waitForRun = async (collectionId: string, runId: string, timeoutMs = 240_000): Promise<HttpResult> => {
    let last: HttpResult | undefined;
    await eventually(
      async () => {
        last = await api(`/v1/async/collections/${collectionId}/runs/${runId}`);
        return last.body.status === 'completed';
      },
      { timeoutMs, what: `run ${runId} completed` },
    ).catch(() => undefined);
    return last!;
  };
  const drain = async (collectionId: string, runId: string, query: string) => {
    const items: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: HttpResult = await api(
        `/v1/async/collections/${collectionId}/runs/${runId}/jobs?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      items.push(...res.body.items);
      expect(res.body.has_more).toBe(res.body.cursor_next !== null);
      cursor = res.body.cursor_next;
      pages += 1;
    } while (cursor);
    return { items, pages };
  };
  /**
   * One meaning of "failed" (JOB_OUTCOMES): the run's counters, its jobs listing's outcomes and
   * GET /v1/jobs filtered by outcome (what the console's usage page reads) count the same jobs,
   * and every listed outcome is jobOutcomeOf(status, is_success).
   */
  const expectViewsAgree = async (run: any, as: typeof api = api) => {
    const counters = {
      success: run.success_requests,
      // failed_requests includes the cancelled (spec 2.14's invariant has no other place for them).
      failed: run.failed_requests - (run.cancelled_requests ?? 0),
      timeout: run.timeout_requests,
      cancelled: run.cancelled_requests ?? 0,
    };
    const runJobs: any[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const res: HttpResult = await as(
        `/v1/async/collections/${run.collection_id}/runs/${run.run_id}/jobs?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      runJobs.push(...res.body.items);
      cursor = res.body.cursor_next;
    }
    const clientJobs = async (filter: string) => {
      const items: any[] = [];
      for (let cursor: string | null = null, first = true; first || cursor; first = false) {
        const res: HttpResult = await as(
          `/v1/jobs?batch_id=${run.run_id}&limit=1000${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(res.status).toBe(200);
        items.push(...res.body.items);
        cursor = res.body.cursor_next;
      }
      return items;
    };
    const all = await clientJobs('');
    for (const job of all) expect(job.outcome).toBe(jobOutcomeOf(job.status, job.is_success));
    const byOutcome = (items: any[], outcome: string) => items.filter((j) => j.outcome === outcome).length;
    for (const [outcome, n] of Object.entries(counters)) {
      expect({ outcome, runListing: byOutcome(runJobs, outcome), clientJobs: byOutcome(all, outcome) }).toEqual({
        outcome,
        runListing: n,
        clientJobs: n,
      });
      expect((await clientJobs(`&outcome=${outcome}`)).length).toBe(n);
    }
    expect((await clientJobs('&outcome=failed,timeout')).length).toBe(counters.failed + counters.timeout);
  };

  describe('collections', () => {
    it('creates with the passing items and reports invalid, blocked and duplicate ones by index', async () => {
      const res = await createCollection({
        name: 'mixed',
        requests: [
          { url: `${site.url}/page?a` },
          { url: `${site.url}/page?a` },
          { url: `${site.url}/page?a`, custom_id: 'other' },
          { url: `${site.url}/page?b`, screenshot: true },
          { url: `${site.url}/page?c`, custom_id: 'x'.repeat(256) },
          { url: 'http://10.0.0.1/admin' },
          { url: 'ftp://example.com/file' },
          'not an object',
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'mixed', duplicates_skipped: 1, duplicate_urls: [`${site.url}/page?a`] });
      expect(res.body.invalid_items.map((i: any) => [i.index, i.errors[0].field])).toEqual([
        [3, 'screenshot'],
        [4, 'custom_id'],
        [7, ''],
      ]);
      expect(res.body.invalid_items[0]).toMatchObject({ url: `${site.url}/page?b`, errors: [{ error_type: 'requires_browser' }] });
      expect(res.body.blocked_urls).toEqual([
        { index: 5, url: 'http://10.0.0.1/admin', reason: 'private_ip', message: expect.any(String) },
        { index: 6, url: 'ftp://example.com/file', reason: 'invalid_protocol', message: expect.any(String) },
      ]);
      const got = await api(`/v1/async/collections/${res.body.id}`);
      expect(got.body).toMatchObject({ id: res.body.id, name: 'mixed', request_count: 2 });
      expect(got.body.created_at).toBeGreaterThan(Date.now() / 1000 - 60);
    });

    it('refuses more than 1000 requests and malformed bodies with 400, storing nothing', async () => {
      const before = (await api('/v1/async/collections')).body.length;
      const tooMany = await createCollection({
        name: 'big',
        requests: Array.from({ length: 1001 }, (_, i) => ({ url: `${site.url}/page?${i}` })),
      });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.detail[0]).toMatchObject({ loc: ['body', 'requests'] });
      expect((await createCollection({ name: 5, requests: 'x' })).status).toBe(400);
      expect((await api('/v1/async/collections')).body.length).toBe(before);
    });

    it('takes any valid body up to the body limit in both runtimes: a 1000-URL collection over 1 MiB, a job carrying a 4 MB payload', async () => {
      // 1000 URLs of 1.5 KB: about 1.6 MB of requests, past NATS's 1 MB message limit.
      const longUrls = Array.from({ length: 1000 }, (_, i) => ({ url: `${site.url}/page?${i}-${'u'.repeat(1500)}` }));
      const big = await createCollection({ name: 'over-1-mib', requests: longUrls });
      expect(big.status).toBe(201);
      expect(big.body).toMatchObject({ duplicates_skipped: 0, invalid_items: [], blocked_urls: [] });
      const updated = await api(`/v1/async/collections/${big.body.id}`, { method: 'PUT', json: { requests: longUrls.slice().reverse() } });
      expect(updated.status).toBe(200);

      // One job whose stored request is 4 MB: the claim reply carries it to the worker.
      const payload = { blob: 'p'.repeat(4 * 1024 * 1024) };
      const heavy = await createCollection({
        name: 'four-mb-job',
        requests: [{ url: `${site.url}/echo`, http_method: { method: 'post', payload } }],
      });
      expect(heavy.status).toBe(201);
      const run = await api(`/v1/async/collections/${heavy.body.id}/run`, { method: 'POST' });
      expect(run.status).toBe(201);
      const done = await waitForRun(heavy.body.id, run.body.run_id);
      expect(done.body).toMatchObject({ status: 'completed', success_requests: 1 });
      const result = await api(`/v1/async/collections/${heavy.body.id}/runs/${run.body.run_id}/jobs/${run.body.job_ids[0]}/result`);
      expect(JSON.parse(result.body.html).body).toBe(JSON.stringify(payload));

      // The same payload in a sync scrape: the request to scrape-engine is parked like a reply.
      const sync = await api('/v1/sync/scrape', { json: { url: `${site.url}/echo`, http_method: { method: 'post', payload } } });
      expect(sync.status).toBe(200);
      expect(JSON.parse(sync.body.html).body).toBe(JSON.stringify(payload));
    });

    it('filters by name, name_prefix and since (AND), updates, deletes, and keeps clients apart', async () => {
      const a = (await createCollection({ name: 'report-alpha', requests: [{ url: `${site.url}/page` }] })).body.id;
      const b = (await createCollection({ name: 'report-beta', requests: [] })).body.id;
      const since = new Date(Date.now() - 60_000).toISOString();
      expect((await api('/v1/async/collections?name=report-alpha')).body.map((c: any) => c.id)).toEqual([a]);
      expect((await api('/v1/async/collections?name_prefix=report-')).body.map((c: any) => c.id).sort()).toEqual([a, b].sort());
      expect(
        (await api(`/v1/async/collections?name_prefix=report-&since=${encodeURIComponent(since)}&name=report-beta`)).body.map(
          (c: any) => c.id,
        ),
      ).toEqual([b]);
      expect((await api(`/v1/async/collections?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body).toEqual(
        [],
      );
      expect((await api('/v1/async/collections?since=yesterday')).status).toBe(400);
      // A legacy row without created_at: listed, but never matched by since.
      const db = env.platform.gateway.get<symbol, DatabaseConnection>(DATABASE);
      const legacy = '0b1e6a2c-0000-4000-8000-00000000cafe';
      await db.sql.query(
        "insert into collections (id, client_id, name, requests, request_count) values ($1, 'batch-a', 'report-legacy', '[]', 0)",
        [legacy],
      );
      expect((await api('/v1/async/collections?name_prefix=report-')).body.map((c: any) => c.id)).toContain(legacy);
      expect((await api(`/v1/async/collections/${legacy}`)).body).toMatchObject({ created_at: null, updated_at: null });
      expect(
        (await api(`/v1/async/collections?name_prefix=report-&since=${encodeURIComponent(since)}`)).body.map((c: any) => c.id),
      ).not.toContain(legacy);

      const put = await api(`/v1/async/collections/${b}`, {
        method: 'PUT',
        json: { name: 'report-gamma', requests: [{ url: `${site.url}/page?1` }, { url: `${site.url}/page?2` }] },
      });
      expect(put.status).toBe(200);
      expect(Object.keys(put.body).sort()).toEqual(['id', 'message', 'name']);
      expect((await api(`/v1/async/collections/${b}`)).body).toMatchObject({ name: 'report-gamma', request_count: 2 });

      // Another client sees none of it.
      const other = (path: string, init: Parameters<typeof http>[2] = {}) => http(url, path, { token: otherToken, ...init });
      expect((await other(`/v1/async/collections/${a}`)).status).toBe(404);
      expect((await other(`/v1/async/collections/${a}`, { method: 'DELETE' })).status).toBe(404);
      expect((await other(`/v1/async/collections/${a}/run`, { method: 'POST' })).status).toBe(404);
      expect((await other('/v1/async/collections?name_prefix=report-')).body).toEqual([]);

      expect((await api(`/v1/async/collections/${a}`, { method: 'DELETE' })).status).toBe(200);
      const gone = await api(`/v1/async/collections/${a}`);
      expect(gone.status).toBe(404);
      expect(gone.body.error_code).toBe('collection_not_found');
      expect((await api('/v1/async/collections/not-a-uuid')).status).toBe(404);
    });
  });

  describe('Idempotency-Key', () => {
    const body = () => ({ name: 'idem', requests: [{ url: `${site.url}/page?idem` }] });

    it('creates once under truly concurrent duplicates and replays the same response to all', async () => {
      const key = `k-${Date.now()}`;
      const results = await Promise.all(Array.from({ length: 6 }, () => createCollection(body(), { 'idempotency-key': key })));
      expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      expect(results.map((r) => r.headers.get('idempotency-replayed')).sort()).toEqual(['false', 'true', 'true', 'true', 'true', 'true']);
      const later = await createCollection(body(), { 'idempotency-key': key });
      expect(later.headers.get('idempotency-replayed')).toBe('true');
      expect(later.body).toEqual(results[0].body);
      expect((await api('/v1/async/collections?name=idem')).body.filter((c: any) => c.id === results[0].body.id)).toHaveLength(1);
    });

    it('refuses the same key with another body (422), is per client, and validates the key (400)', async () => {
      const key = `k2-${Date.now()}`;
      const first = await createCollection(body(), { 'idempotency-key': key });
      const changed = await createCollection({ ...body(), name: 'idem-2' }, { 'idempotency-key': key });
      expect(changed.status).toBe(422);
      expect(changed.body.error_code).toBe('idempotency_key_reused');
      const otherClient = await createCollection(body(), { 'idempotency-key': key }, otherToken);
      expect(otherClient.status).toBe(201);
      expect(otherClient.headers.get('idempotency-replayed')).toBe('false');
      expect(otherClient.body.id).not.toBe(first.body.id);
      for (const bad of ['a:b', 'has space', 'x'.repeat(201)]) {
        expect((await createCollection(body(), { 'idempotency-key': bad })).status).toBe(400);
      }
      // A body that fails validation stores nothing under its key.
      const invalidKey = `k3-${Date.now()}`;
      expect((await createCollection({ name: 7 }, { 'idempotency-key': invalidKey })).status).toBe(400);
      expect((await createCollection(body(), { 'idempotency-key': invalidKey })).headers.get('idempotency-replayed')).toBe('false');
      // Without the header every POST creates.
      const [x, y] = await Promise.all([createCollection(body()), createCollection(body())]);
      expect(x.body.id).not.toBe(y.body.id);
      expect(x.headers.get('idempotency-replayed')).toBeNull();
    });
  });

  describe('runs, listing and results', () => {
    it('runs 1000 requests with a known mix, counts them exactly, charges per job and drains every job once', async () => {
      const requests = Array.from({ length: 1000 }, (_, i) => {
        if (i % 10 === 3) return { url: `${site.url}/status/404?i=${i}`, custom_id: `c${i}` };
        if (i % 10 === 7) return { url: `${site.url}/captcha?i=${i}`, custom_id: `c${i}` };
        return { url: `${site.url}/page?i=${i}`, custom_id: `c${i}` };
      });
      const created = await createCollection({ name: 'thousand', requests });
      expect(created.body.invalid_items).toEqual([]);
      const collectionId = created.body.id;
      // What the ledger has charged this client so far. X-Quota-Used also counts credits held: a
      // gateway's lease block from the calls before, given back unspent after CREDIT_LEASE_IDLE_MS.
      const charged = async () =>
        Object.values((await api('/v1/sync/billing')).body.clients as Record<string, { credits: { total: number } }>)[0]?.credits.total ??
        0;
      const usedBefore = await charged();
      // Usage metrics count charged calls by the same success: the site answered and the job is_success.
      const usage = async () => Object.values((await api('/v1/sync/billing')).body.clients as Record<string, any>)[0] ?? {};
      const usageBefore = await usage();

      const start = await api(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      expect(start.status).toBe(201);
      expect(start.body).toMatchObject({
        status: 'in_progress',
        total_requests: 1000,
        success_requests: 0,
        failed_requests: 0,
        timeout_requests: 0,
        collection_id: collectionId,
      });
      expect(start.body.job_ids).toHaveLength(1000);
      expect(start.headers.get('x-credits-charged')).toBe('0');
      const runId = start.body.run_id;

      const live = await api(`/v1/async/collections/${collectionId}/runs?status_filter=in_progress`);
      expect(live.body.items.map((r: any) => r.run_id)).toContain(runId);

      const done = await waitForRun(collectionId, runId);
      // The errors of unexpected non-successes come with the counts, so a failure says why.
      const unexpected = (done.body.failed_jobs ?? [])
        .filter((j: any) => !/\/(captcha|status\/404)/.test(j.url))
        .map((j: any) => `${j.status}: ${j.error}`);
      expect(unexpected).toEqual([]);
      expect(done.body).toMatchObject({
        status: 'completed',
        total_requests: 1000,
        success_requests: 800,
        failed_requests: 200,
        timeout_requests: 0,
        all_jobs_persisted: true,
        credits_charged: 1000,
      });
      expect(done.body.success_criterion).toEqual({
        version: expect.stringMatching(/^content-success\//),
        rules: expect.arrayContaining(['the target answered HTTP 2xx']),
      });
      expect(done.body.failed_jobs).toHaveLength(200);
      expect(done.body.failed_jobs.find((j: any) => j.url.includes('/captcha'))).toMatchObject({
        status: 'completed',
        error: 'blocked: captcha',
        custom_id: expect.any(String),
      });
      expect(done.body.failed_jobs.find((j: any) => j.url.includes('/status/404'))).toMatchObject({
        status: 'completed',
        error: 'HTTP 404',
      });
      // Every job charged once (1 credit, simple), in the ledger that feeds the quota headers.
      expect(await charged()).toBe(usedBefore + 1000);
      // The usage report's failed and success (charged calls) are the run's: every job here was charged.
      const usageAfter = await usage();
      expect({
        success: (usageAfter.total_success ?? 0) - (usageBefore.total_success ?? 0),
        failed: (usageAfter.total_failed ?? 0) - (usageBefore.total_failed ?? 0),
      }).toEqual({ success: done.body.success_requests, failed: done.body.failed_requests });
      await expectViewsAgree(done.body);
      // And the quota headers say the same once nothing is held any more (a CI run read 1,002 with a block of 8 given back meanwhile).
      await eventually(async () => Number((await api('/v1/plans')).headers.get('x-quota-used')) === usedBefore + 1000, {
        timeoutMs: 15_000,
        what: 'x-quota-used to equal the ledger once the lease block is back',
      });

      // Drained through cursor pages: every job exactly once, in insertion order.
      const { items, pages } = await drain(collectionId, runId, 'limit=100');
      expect(pages).toBe(10);
      expect(items.map((j) => j.job_public_id)).toEqual(start.body.job_ids);
      // GET /v1/jobs's names too, so one client reads both listings alike.
      expect(items.every((j) => j.job_id === j.job_public_id && j.run_id === runId)).toBe(true);
      expect(items.filter((j) => j.is_success === true)).toHaveLength(done.body.success_requests);
      const captcha = items.find((j) => j.url.includes('/captcha'));
      expect(captcha).toMatchObject({
        status: 'completed',
        is_success: false,
        block_reason: 'captcha',
        status_code: 200,
        retries_attempted: 0,
        run_public_id: runId,
        collection_id: collectionId,
      });
      expect(captcha.rule_hits.length).toBeGreaterThan(0);
      expect(Array.isArray(captcha.protection_stack)).toBe(true);
      expect(captcha.completed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
      expect(captcha.execution_time_ms).toEqual(expect.any(Number));

      // By completion time, both directions, in pages of 1000 (the maximum).
      const asc = await drain(collectionId, runId, 'order_by=completed_at&limit=1000');
      expect(asc.items).toHaveLength(1000);
      const times = asc.items.map((j) => j.completed_at);
      expect([...times].sort()).toEqual(times);
      const desc = await drain(collectionId, runId, 'order_by=completed_at&order_dir=desc&limit=333');
      expect(desc.pages).toBe(4);
      expect(new Set(desc.items.map((j) => j.job_public_id)).size).toBe(1000);

      // Filters: status list, since_completed_at strictly greater (Z, +00:00 and no zone alike).
      const statusFiltered = await api(`/v1/async/collections/${collectionId}/runs/${runId}/jobs?status_filter=failed,timeout`);
      expect(statusFiltered.body.items).toEqual([]);
      const pivot = asc.items[499].completed_at as string;
      const later = asc.items.filter((j) => j.completed_at > pivot).length;
      for (const form of [`${pivot}Z`, `${pivot}+00:00`, pivot]) {
        const res = await drain(collectionId, runId, `since_completed_at=${encodeURIComponent(form)}&limit=1000`);
        expect(res.items).toHaveLength(later);
      }

      // Cursor rules: another order_by → 400; limit bounds; include_results capped at 100.
      const firstPage = await api(`/v1/async/collections/${collectionId}/runs/${runId}/jobs?limit=5`);
      const reused = await api(
        `/v1/async/collections/${collectionId}/runs/${runId}/jobs?order_by=completed_at&cursor=${firstPage.body.cursor_next}`,
      );
      expect(reused.status).toBe(400);
      expect(reused.body.error_code).toBe('invalid_cursor');
      expect((await api(`/v1/async/collections/${collectionId}/runs/${runId}/jobs?cursor=garbage`)).status).toBe(400);
      expect((await api(`/v1/async/collections/${collectionId}/runs/${runId}/jobs?limit=0`)).status).toBe(400);
      expect((await api(`/v1/async/collections/${collectionId}/runs/${runId}/jobs?limit=1001`)).status).toBe(400);
      expect((await api(`/v1/async/collections/${collectionId}/runs/${runId}/jobs?order_by=url`)).status).toBe(400);
      const withResults = await api(`/v1/async/collections/${collectionId}/runs/${runId}/jobs?limit=1000&include_results=true`);
      expect(withResults.body.items).toHaveLength(100);
      expect(withResults.body.items[0].result).toMatchObject({
        statusCode: 200,
        url: requests[0].url,
        custom_id: 'c0',
        status: 'completed',
      });
      expect(withResults.body.items[0].result.html).toContain('Fixture article');
      expect((await api(`/v1/async/collections/${collectionId}/runs/${runId}/jobs?limit=2`)).body.items[0].result).toBeUndefined();

      // Result endpoint: body plus url, custom_id, status; unknown job ids.
      const result = await api(`/v1/async/collections/${collectionId}/runs/${runId}/jobs/${start.body.job_ids[3]}/result`);
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({
        statusCode: 404,
        url: requests[3].url,
        custom_id: 'c3',
        status: 'completed',
        guidance: { success: false },
      });
      for (const jobId of ['nope', '00000000-0000-4000-8000-000000000000']) {
        const missing = await api(`/v1/async/collections/${collectionId}/runs/${runId}/jobs/${jobId}/result`);
        expect(missing.status).toBe(404);
        expect(missing.body.detail).toMatchObject({ error_code: 'job_id_invalid', completed_at: null, age_hours: null });
      }

      // Runs listing; a run under another collection is 404.
      const runs = await api(`/v1/async/collections/${collectionId}/runs?status_filter=completed`);
      expect(runs.body).toMatchObject({ total: 1, items: [{ run_id: runId }] });
      const otherCollection = (await createCollection({ name: 'elsewhere', requests: [{ url: `${site.url}/page` }] })).body.id;
      expect((await api(`/v1/async/collections/${otherCollection}/runs/${runId}`)).status).toBe(404);
      expect((await api(`/v1/async/collections/${otherCollection}/runs/${runId}/jobs`)).status).toBe(404);
    });

    it('runs a collection many times, refuses empty and unknown ones, and reports pending results while running', async () => {
      const collectionId = (
        await createCollection({
          name: 'twice',
          requests: [{ url: `${site.url}/slow?ms=1500`, custom_id: 'slow' }, { url: `${site.url}/page?twice` }],
        })
      ).body.id;
      const first = await api(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      const pending = await api(`/v1/async/collections/${collectionId}/runs/${first.body.run_id}/jobs/${first.body.job_ids[0]}/result`);
      expect(pending.status).toBe(404);
      expect(pending.body.detail).toMatchObject({ error_code: 'result_pending' });
      const processing = await api(`/v1/async/collections/${collectionId}/runs/${first.body.run_id}/jobs?status_filter=processing`);
      expect(processing.body.items.map((j: any) => j.job_public_id)).toContain(first.body.job_ids[0]);
      const second = await api(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      expect(second.status).toBe(201);
      await waitForRun(collectionId, first.body.run_id);
      await waitForRun(collectionId, second.body.run_id);
      const runs = await api(`/v1/async/collections/${collectionId}/runs`);
      expect(runs.body.total).toBe(2);
      expect(runs.body.items.map((r: any) => r.run_id)).toEqual([second.body.run_id, first.body.run_id]);

      const empty = (await createCollection({ name: 'empty', requests: [] })).body.id;
      const refused = await api(`/v1/async/collections/${empty}/run`, { method: 'POST' });
      expect(refused.status).toBe(404);
      expect(refused.body.error_code).toBe('collection_empty');
      expect((await api('/v1/async/collections/00000000-0000-4000-8000-000000000000/run', { method: 'POST' })).status).toBe(404);

      // Deleting the collection leaves executed runs readable.
      expect((await api(`/v1/async/collections/${collectionId}`, { method: 'DELETE' })).status).toBe(200);
      expect((await api(`/v1/async/collections/${collectionId}/runs/${first.body.run_id}`)).body.status).toBe('completed');
    });

    it("keeps a client within its plan's jobs in flight", async () => {
      const free = (await http(url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'free', rate_limit_per_minute: 6000 } }))
        .body.token;
      const as = (path: string, init: Parameters<typeof http>[2] = {}) => http(url, path, { token: free, ...init });
      const collectionId = (
        await as('/v1/async/collections', {
          json: { name: 'paced', requests: Array.from({ length: 6 }, (_, i) => ({ url: `${site.url}/slow?ms=700&p=${i}` })) },
        })
      ).body.id;
      const run = await as(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      let peak = 0;
      for (;;) {
        const page = (await as(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}/jobs?status_filter=processing`)).body;
        peak = Math.max(peak, page.items.filter((j: any) => j.started_at !== null).length);
        if (page.items.length === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(peak).toBe(2); // the free plan's batch_concurrency
      const done = (await as(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}`)).body;
      expect(done).toMatchObject({ status: 'completed', success_requests: 6 });
    });

    it('ends a job past the runtime budget as a worker-level timeout, uncharged', async () => {
      const collectionId = (
        await createCollection({
          name: 'too-slow',
          requests: [{ url: `${site.url}/slow?ms=40000`, custom_id: 'slow' }, { url: `${site.url}/page?fast` }],
        })
      ).body.id;
      const run = await api(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      const done = await waitForRun(collectionId, run.body.run_id);
      expect(done.body).toMatchObject({
        total_requests: 2,
        success_requests: 1,
        failed_requests: 0,
        timeout_requests: 1,
        credits_charged: 1,
      });
      expect(done.body.failed_jobs).toEqual([
        {
          job_id: run.body.job_ids[0],
          url: `${site.url}/slow?ms=40000`,
          custom_id: 'slow',
          status: 'timeout',
          error: expect.stringMatching(/worker-level timeout/),
        },
      ]);
      const result = await api(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}/jobs/${run.body.job_ids[0]}/result`);
      expect(result.body).toMatchObject({
        status: 'timeout',
        statusCode: 0,
        guidance: { success: false, error_type: 'timeout', credits_charged: 0 },
      });
      const listed = (await api(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}/jobs`)).body.items[0];
      expect(listed).toMatchObject({ status: 'timeout', is_success: false, outcome: 'timeout' });
      expect(listed.execution_time_ms).toBeGreaterThanOrEqual(7_900);
      await expectViewsAgree(done.body);
    });

    it("stops charging when the month's credits run out: the remaining jobs fail uncharged", async () => {
      const created = (
        await http(url, '/v1/admin/clients', {
          token: env.adminToken,
          json: { plan: 'starter', monthly_credits: 5, rate_limit_per_minute: rateLimitForPolling(100) },
        })
      ).body;
      const as = (path: string, init: Parameters<typeof http>[2] = {}) => http(url, path, { token: created.token, ...init });
      const collectionId = (
        await as('/v1/async/collections', {
          json: { name: 'budget', requests: Array.from({ length: 8 }, (_, i) => ({ url: `${site.url}/page?q=${i}` })) },
        })
      ).body.id;
      const run = await as(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      const done = await eventually(
        async () => {
          const body = (await as(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}`)).body;
          return body.status === 'completed' && body;
        },
        { what: 'the budget run completed' },
      );
      expect(done).toMatchObject({ status: 'completed', success_requests: 5, failed_requests: 3, credits_charged: 5 });
      const quota = await as('/v1/plans');
      expect(quota.headers.get('x-quota-used')).toBe('5');
      expect(quota.headers.get('x-quota-remaining')).toBe('0');
      const refusedJob = done.failed_jobs[0].job_id;
      const result = await as(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}/jobs/${refusedJob}/result`);
      expect(result.body).toMatchObject({ status: 'failed', guidance: { error_type: 'quota_exceeded', credits_charged: 0 } });
      // An uncharged worker failure is failed in every view (the run, both listings), though the
      // usage report, which counts charged calls, never sees it.
      await expectViewsAgree(done, as);
      // No credits left: a new run is refused up front.
      const again = await as(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      expect(again.status).toBe(429);
      expect(again.body.error_code).toBe('quota_exceeded');
    });

    it('runs browser jobs at 5 credits and writes the completion webhook to the outbox with the run', async () => {
      const hook = `${site.url}/status/204`;
      const collectionId = (
        await createCollection({
          name: 'rendered',
          callback_url: hook,
          requests: [{ url: `${site.url}/page?browser`, browser: true, browser_type: 'light' }],
        })
      ).body.id;
      const run = await api(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      expect(run.body).toMatchObject({ callback_url: hook, callback_status: 'pending' });
      const done = await waitForRun(collectionId, run.body.run_id);
      expect(done.body).toMatchObject({ status: 'completed', success_requests: 1, credits_charged: 5 });
      const db = env.platform.gateway.get<symbol, DatabaseConnection>(DATABASE);
      const [outbox] = await db.sql.query<{ status: string; payload: any; callback_url: string }>(
        'select status, payload, callback_url from webhook_outbox where run_id = $1',
        [run.body.run_id],
      );
      expect(outbox).toMatchObject({ callback_url: hook });
      expect(outbox.payload).toMatchObject({
        event: 'run.completed',
        run_id: run.body.run_id,
        collection_id: collectionId,
        status: 'completed',
        total_requests: 1,
        success_requests: 1,
        failed_requests: 0,
        job_ids: run.body.job_ids,
      });
      const [ledger] = await db.sql.query<{ credits: number; mode: string }>(
        'select credits, mode from credit_ledger_entries where charge_key = $1',
        [`batch-job:${run.body.job_ids[0]}`],
      );
      expect(ledger).toEqual({ credits: 5, mode: 'browser' });
    });

    it('carries multi-MB result bodies through the transport', async () => {
      const collectionId = (await createCollection({ name: 'big-body', requests: [{ url: `${site.url}/big?bytes=${3 * 1024 * 1024}` }] }))
        .body.id;
      const run = await api(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      await waitForRun(collectionId, run.body.run_id);
      const result = await api(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}/jobs/${run.body.job_ids[0]}/result`);
      expect(result.status).toBe(200);
      expect(result.body.html.length).toBe(3 * 1024 * 1024);
      // Above the inline limit the listing leaves the body to the result endpoint.
      const listed = await api(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}/jobs?include_results=true`);
      expect(listed.body.items[0].result).toBeNull();
    });

    it('truncates long URLs in the listing (url_truncated) and keeps them whole in the result', async () => {
      const long = `${site.url}/page?${'q'.repeat(2100)}`;
      const collectionId = (await createCollection({ name: 'long-url', requests: [{ url: long }] })).body.id;
      const run = await api(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      await waitForRun(collectionId, run.body.run_id);
      const [item] = (await api(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}/jobs`)).body.items;
      expect(item.url).toBe(long.slice(0, 2048));
      expect(item.url_truncated).toBe(true);
      expect((await api(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}/jobs/${item.job_public_id}/result`)).body.url).toBe(
        long,
      );
    });

    it('prunes result bodies and then listing rows when the clock passes their retention', async () => {
      const collectionId = (
        await createCollection({ name: 'retention', requests: [{ url: `${site.url}/page?r1` }, { url: `${site.url}/page?r2` }] })
      ).body.id;
      const run = await api(`/v1/async/collections/${collectionId}/run`, { method: 'POST' });
      await waitForRun(collectionId, run.body.run_id);
      const jobs = `/v1/async/collections/${collectionId}/runs/${run.body.run_id}/jobs`;
      // A body gone inside the window (an incident) is result_lost, not expired.
      const db = env.platform.gateway.get<symbol, DatabaseConnection>(DATABASE);
      await db.sql.query('delete from job_results where job_id = $1', [run.body.job_ids[1]]);
      const lost = await api(`${jobs}/${run.body.job_ids[1]}/result`);
      expect(lost.status).toBe(404);
      expect(lost.body.detail).toMatchObject({ error_code: 'result_lost', completed_at: expect.any(String) });
      expect(lost.body.detail.age_hours).toBeLessThan(1);
      const cursor = (await api(`${jobs}?limit=1`)).body.cursor_next;
      const resultPath = `${jobs}/${run.body.job_ids[0]}/result`;
      expect((await api(resultPath)).status).toBe(200);

      clock.offsetMs = 49 * HOUR;
      const expired = await pollUntil(
        () => api(resultPath),
        (r) => r.status === 404,
      );
      expect(expired.body.detail).toMatchObject({ error_code: 'result_expired', completed_at: expect.stringMatching(/\.\d{3}$/) });
      expect(expired.body.detail.age_hours).toBeGreaterThanOrEqual(48);
      expect((await api(`${jobs}?limit=10`)).body.items).toHaveLength(2);

      clock.offsetMs = 91 * 24 * HOUR;
      await pollUntil(
        () => api(`${jobs}?limit=10`),
        (r) => r.body.items?.length === 0,
      );
      const afterPrune = await api(`${jobs}?cursor=${cursor}`);
      expect(afterPrune.status).toBe(200);
      expect(afterPrune.body).toEqual({ items: [], cursor_next: null, has_more: false });
      expect((await api(resultPath)).body.detail.error_code).toBe('job_id_invalid');
      // The run itself stays, with its job ids.
      expect((await api(`/v1/async/collections/${collectionId}/runs/${run.body.run_id}`)).body.job_ids).toEqual(run.body.job_ids);
      clock.offsetMs = 0;
    });
  });
});

async function pollUntil(probe: () => Promise<HttpResult>, done: (r: HttpResult) => boolean, timeoutMs = 30_000): Promise<HttpResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await probe();
    if (done(res) || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 200));
  }
}
