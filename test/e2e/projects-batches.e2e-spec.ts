import { DATABASE, type DatabaseConnection } from '@lib/persistence';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ARTICLE_HTML } from '../support/fixture-site';
import { eventually, rateLimitForPolling } from './support/eventually';
import { http as call, type HttpResult } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

/**
 * A target site that counts every request it receives, per path, when it arrives: the judge of
 * "no job starts while paused" and "a cancelled job never runs". /fast/<id> answers an article at
 * once, /slow/<id>?ms= after a delay (a job kept in flight).
 */
interface CountingSite {
  url: string;
  port: number;
  /** Request arrivals per path. */
  arrivals: Map<string, number>;
  total(prefix?: string): number;
  close(): Promise<void>;
}

async function startCountingSite(): Promise<CountingSite> {
  const arrivals = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    arrivals.set(url.pathname, (arrivals.get(url.pathname) ?? 0) + 1);
    const answer = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE_HTML);
    if (url.pathname.startsWith('/slow/')) setTimeout(answer, Number(url.searchParams.get('ms') ?? 1000)).unref();
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    arrivals,
    total: (prefix = '/') => [...arrivals.entries()].filter(([p]) => p.startsWith(prefix)).reduce((sum, [, n]) => sum + n, 0),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A webhook receiver that keeps every delivery. */
async function startReceiver(): Promise<{ url: string; port: number; bodies: any[]; close(): Promise<void> }> {
  const bodies: any[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push({
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        signature: req.headers['x-service-signature'],
        event: req.headers['x-service-event'],
      });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, port, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

type Action = 'append' | 'run' | 'pause' | 'resume' | 'cancel';
type State = 'open' | 'running' | 'paused' | 'cancelling' | 'completed' | 'cancelled';

/**
 * Decision 0014's batch table, written out here on its own (not imported), so the service is held
 * to the documented table: each cell is [status, state afterwards].
 */
const BATCH_TABLE: Record<State, Record<Action, [number, State]>> = {
  open: { append: [201, 'open'], run: [200, 'running'], pause: [409, 'open'], resume: [409, 'open'], cancel: [200, 'cancelled'] },
  // Running and paused batches live in a paused project here: no job starts, so a cancel finds none in flight.
  running: {
    append: [201, 'running'],
    run: [200, 'running'],
    pause: [200, 'paused'],
    resume: [200, 'running'],
    cancel: [200, 'cancelled'],
  },
  paused: { append: [201, 'paused'], run: [409, 'paused'], pause: [200, 'paused'], resume: [200, 'running'], cancel: [200, 'cancelled'] },
  cancelling: {
    append: [409, 'cancelling'],
    run: [409, 'cancelling'],
    pause: [409, 'cancelling'],
    resume: [409, 'cancelling'],
    cancel: [200, 'cancelling'],
  },
  completed: {
    append: [409, 'completed'],
    run: [409, 'completed'],
    pause: [409, 'completed'],
    resume: [409, 'completed'],
    cancel: [409, 'completed'],
  },
  cancelled: {
    append: [409, 'cancelled'],
    run: [409, 'cancelled'],
    pause: [409, 'cancelled'],
    resume: [409, 'cancelled'],
    cancel: [409, 'cancelled'],
  },
};

type ProjectStatus = 'active' | 'paused' | 'closed';
type ProjectAction = 'write' | 'pause' | 'resume' | 'close';
const PROJECT_TABLE: Record<ProjectStatus, Record<ProjectAction, [number, ProjectStatus]>> = {
  active: { write: [201, 'active'], pause: [200, 'paused'], resume: [200, 'active'], close: [200, 'closed'] },
  paused: { write: [201, 'paused'], pause: [200, 'paused'], resume: [200, 'active'], close: [200, 'closed'] },
  closed: { write: [409, 'closed'], pause: [409, 'closed'], resume: [409, 'closed'], close: [200, 'closed'] },
};

/**
 * Projects, batches, /v1/jobs, job data, the credit summary and cancelling (spec 4.8, decision
 * 0014) over HTTP in both runtimes: the full state tables, pause and resume judged by a target
 * that counts arrivals, append to a running batch, close, cancel (nothing charged for jobs that
 * never ran, the webhook once), the credit summary against the ledger, other clients' ids as 404,
 * and a pause that holds across a restart.
 */
describe.each(runtimesUnderTest('projects'))('projects and batches — $name', (runtime) => {
  let site: CountingSite;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let env: InProcessPlatform;
  let url: string;
  let token: string;
  let otherToken: string;
  let clientId: string;
  let cleanup: () => Promise<void> = async () => undefined;
  let preparedEnv: Record<string, string>;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'projects-e2e-'));

  const platformEnv = () => ({
    ...preparedEnv,
    DATA_DIR: dataDir,
    // Fixed, so the restarted platform knows them too (a generated token is shown once).
    ADMIN_TOKEN: 'projects-e2e-admin-token-0123456789',
    DEMO_TOKEN: 'projects-e2e-demo-token-0123456789',
    TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiver.port}`,
    JOB_WORKER_CONCURRENCY: '16',
    JOB_SWEEP_INTERVAL_MS: '300',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    BROWSER_WARM: 'false',
  });

  beforeAll(async () => {
    site = await startCountingSite();
    receiver = await startReceiver();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    preparedEnv = prepared.env;
    env = await startInProcessPlatform(platformEnv());
    url = env.url;
    const created = await call(url, '/v1/admin/clients', {
      token: env.adminToken,
      json: { plan: 'scale', client_id: 'projects-a', rate_limit_per_minute: rateLimitForPolling(50) },
    });
    token = created.body.token;
    clientId = created.body.client_id;
    otherToken = (await call(url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'starter', client_id: 'projects-b' } })).body
      .token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await receiver?.close();
    await site?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (p: string, init: Parameters<typeof call>[2] = {}) => call(url, p, { token, ...init });
  let serial = 0;
  const unique = () => `${Date.now().toString(36)}-${(serial += 1)}`;
  const fast = () => `${site.url}/fast/${unique()}`;
  const slow = (ms: number) => `${site.url}/slow/${unique()}?ms=${ms}`;

  const createProject = async (body: Record<string, unknown> = {}) => {
    const res = await api('/v1/projects', { json: { name: `p-${unique()}`, ...body } });
    expect(res.status).toBe(201);
    return res.body;
  };
  const createBatch = async (projectId: string, urls: string[], extra: Record<string, unknown> = {}) => {
    const res = await api('/v1/batches', { json: { project_id: projectId, requests: urls.map((u) => ({ url: u })), ...extra } });
    expect(res.status).toBe(201);
    return res.body;
  };
  const batchAction = (batchId: string, action: Action, urls: string[] = [fast()]): Promise<HttpResult> => {
    if (action === 'append') return api(`/v1/batches/${batchId}/append-jobs`, { json: { requests: urls.map((u) => ({ url: u })) } });
    if (action === 'run' || action === 'cancel') return api(`/v1/batches/${batchId}/${action}`, { method: 'POST' });
    return api(`/v1/batches/${batchId}/${action}`, { method: 'PUT' });
  };
  const projectAction = (projectId: string, action: ProjectAction): Promise<HttpResult> =>
    action === 'write'
      ? api('/v1/batches', { json: { project_id: projectId, requests: [{ url: fast() }] } })
      : api(`/v1/projects/${projectId}/${action}`, { method: 'PUT' });
  const batchNow = async (batchId: string) => (await api(`/v1/batches/${batchId}`)).body;
  const waitForBatch = (batchId: string, state: State, timeoutMs = 60_000) =>
    eventually(
      async () => {
        const batch = await batchNow(batchId);
        return batch.state === state ? batch : null;
      },
      { timeoutMs, what: `batch ${batchId} ${state}` },
    );
  const jobsOf = async (query: string) => {
    const items: any[] = [];
    let cursor: string | null = null;
    do {
      const res: HttpResult = await api(`/v1/jobs?${query}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      items.push(...res.body.items);
      cursor = res.body.cursor_next;
    } while (cursor);
    return items;
  };

  describe('the batch state table (decision 0014), every state × every operation', () => {
    let active: string;
    let frozen: string;

    beforeAll(async () => {
      active = (await createProject()).project_id;
      frozen = (await createProject()).project_id;
      expect((await api(`/v1/projects/${frozen}/pause`, { method: 'PUT' })).body.status).toBe('paused');
    });

    /** A fresh batch in `state`. */
    const batchIn = async (state: State): Promise<string> => {
      switch (state) {
        case 'open':
          return (await createBatch(active, [fast()])).batch_id;
        case 'running':
        case 'paused': {
          const id = (await createBatch(frozen, [fast()])).batch_id;
          expect((await batchAction(id, 'run')).body.state).toBe('running');
          if (state === 'paused') expect((await batchAction(id, 'pause')).body.state).toBe('paused');
          return id;
        }
        case 'cancelling': {
          const target = slow(8000);
          const id = (await createBatch(active, [target])).batch_id;
          await batchAction(id, 'run');
          const pathOf = new URL(target).pathname;
          await eventually(async () => (site.arrivals.get(pathOf) ?? 0) > 0, { what: 'the slow job started' });
          expect((await batchAction(id, 'cancel')).body.state).toBe('cancelling');
          return id;
        }
        case 'completed': {
          const id = (await createBatch(active, [fast()])).batch_id;
          await batchAction(id, 'run');
          await waitForBatch(id, 'completed');
          return id;
        }
        case 'cancelled': {
          const id = (await createBatch(active, [fast()])).batch_id;
          expect((await batchAction(id, 'cancel')).body.state).toBe('cancelled');
          return id;
        }
      }
    };

    const cells = (Object.keys(BATCH_TABLE) as State[]).flatMap((state) =>
      (Object.keys(BATCH_TABLE[state]) as Action[]).map((action) => [state, action, ...BATCH_TABLE[state][action]] as const),
    );

    it.each(cells)('%s × %s → %i, then %s', async (state, action, status, after) => {
      const id = await batchIn(state);
      const res = await batchAction(id, action);
      expect(res.status).toBe(status);
      if (status === 409) expect(res.body).toMatchObject({ error_code: 'invalid_state', state });
      else expect(res.body.state).toBe(after);
      expect((await batchNow(id)).state).toBe(after);
    });

    it('refuses to run an open batch without jobs (409) and runs it once it has some', async () => {
      const res = await api('/v1/batches', { json: { project_id: active } });
      expect(res.body).toMatchObject({ state: 'open', total_requests: 0 });
      expect(await batchAction(res.body.batch_id, 'run')).toMatchObject({
        status: 409,
        body: { error_code: 'invalid_state', state: 'open' },
      });
      expect((await batchAction(res.body.batch_id, 'append')).body.total_requests).toBe(1);
      expect((await batchAction(res.body.batch_id, 'run')).body.state).toBe('running');
      await waitForBatch(res.body.batch_id, 'completed');
    });
  });

  describe('the project state table', () => {
    const cells = (Object.keys(PROJECT_TABLE) as ProjectStatus[]).flatMap((status) =>
      (Object.keys(PROJECT_TABLE[status]) as ProjectAction[]).map((action) => [status, action, ...PROJECT_TABLE[status][action]] as const),
    );

    it.each(cells)('%s × %s → %i, then %s', async (status, action, code, after) => {
      const id = (await createProject()).project_id;
      if (status !== 'active') expect((await projectAction(id, status === 'paused' ? 'pause' : 'close')).status).toBe(200);
      const res = await projectAction(id, action);
      expect(res.status).toBe(code);
      if (code === 409) expect(res.body).toMatchObject({ error_code: 'invalid_state', state: status });
      expect((await api(`/v1/projects/${id}`)).body.status).toBe(after);
    });

    it('lists projects a page at a time, filtered by status, and refuses a cursor of another filter', async () => {
      const mine = await Promise.all([createProject(), createProject(), createProject()]);
      await api(`/v1/projects/${mine[1].project_id}/close`, { method: 'PUT' });
      const seen: string[] = [];
      let cursor: string | null = null;
      let first: HttpResult | null = null;
      do {
        const res: HttpResult = await api(`/v1/projects?limit=2&status=active${cursor ? `&cursor=${cursor}` : ''}`);
        first ??= res;
        seen.push(...res.body.items.map((p: any) => p.project_id));
        expect(res.body.items.every((p: any) => p.status === 'active')).toBe(true);
        cursor = res.body.cursor_next;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(expect.arrayContaining([mine[0].project_id, mine[2].project_id]));
      expect(seen).not.toContain(mine[1].project_id);
      expect((await api(`/v1/projects?limit=2&status=closed&cursor=${first!.body.cursor_next}`)).body.error_code).toBe('invalid_cursor');
      expect((await api('/v1/projects?cursor=bm9wZQ')).status).toBe(400);
    });

    it('refuses defaults that are not scrape-request fields, and merges valid ones under every item', async () => {
      const bad = await api('/v1/projects', { json: { name: 'bad', defaults: { url: 'http://x', nonsense: 1 } } });
      expect(bad).toMatchObject({ status: 422, body: { error_code: 'invalid_project' } });
      const project = await createProject({ defaults: { format: 'markdown' } });
      const batch = await createBatch(project.project_id, [fast()]);
      await batchAction(batch.batch_id, 'run');
      await waitForBatch(batch.batch_id, 'completed');
      const [job] = await jobsOf(`batch_id=${batch.batch_id}`);
      const data = await api(`/v1/jobs/${job.job_id}/data`);
      expect(data.status).toBe(200);
      expect(data.body.markdown).toContain('Fixture article');
      expect(data.body.html).toBeNull();
    });
  });

  it('pause stops new jobs mid-batch (counted by the target), resume finishes them, each URL fetched once', async () => {
    const project = await createProject({ max_concurrent_jobs: 2 });
    const urls = Array.from({ length: 12 }, () => slow(250));
    const batch = await createBatch(project.project_id, urls);
    await batchAction(batch.batch_id, 'run');
    await eventually(async () => (await batchNow(batch.batch_id)).success_requests >= 2, { what: 'two jobs done' });
    expect((await batchAction(batch.batch_id, 'pause')).body.state).toBe('paused');
    // Jobs already started finish; none is left dispatched.
    await eventually(async () => (await jobsOf(`batch_id=${batch.batch_id}&status=running`)).length === 0, { what: 'in-flight jobs done' });
    const arrived = site.total('/slow/');
    const pending = (await jobsOf(`batch_id=${batch.batch_id}&status=pending`)).length;
    expect(pending).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(site.total('/slow/')).toBe(arrived);
    expect((await jobsOf(`batch_id=${batch.batch_id}&status=pending`)).length).toBe(pending);
    const summary = (await api('/v1/projects/summary')).body.items.find((p: any) => p.project_id === project.project_id);
    expect(summary.jobs).toMatchObject({ pending, running: 0 });

    expect((await batchAction(batch.batch_id, 'resume')).body.state).toBe('running');
    const done = await waitForBatch(batch.batch_id, 'completed');
    expect(done).toMatchObject({ total_requests: 12, success_requests: 12, failed_requests: 0, credits_charged: 12 });
    for (const u of urls) expect(site.arrivals.get(new URL(u).pathname)).toBe(1);
  });

  it('pausing the project stops all its batches; its max_concurrent_jobs is never exceeded', async () => {
    const project = await createProject({ max_concurrent_jobs: 1 });
    const batches = await Promise.all([0, 1].map(() => createBatch(project.project_id, [slow(200), slow(200), slow(200)])));
    for (const b of batches) await batchAction(b.batch_id, 'run');
    let peak = 0;
    const watch = setInterval(() => {
      void jobsOf(`project_id=${project.project_id}&status=running`).then((running) => (peak = Math.max(peak, running.length)));
    }, 60);
    try {
      await eventually(async () => (await jobsOf(`project_id=${project.project_id}&status=completed`)).length >= 1, { what: 'a job done' });
      expect((await api(`/v1/projects/${project.project_id}/pause`, { method: 'PUT' })).body.status).toBe('paused');
      await eventually(async () => (await jobsOf(`project_id=${project.project_id}&status=running`)).length === 0, { what: 'idle' });
      const arrived = site.total('/slow/');
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(site.total('/slow/')).toBe(arrived);
      expect((await api(`/v1/projects/${project.project_id}/resume`, { method: 'PUT' })).body.status).toBe('active');
      for (const b of batches) expect(await waitForBatch(b.batch_id, 'completed')).toMatchObject({ success_requests: 3 });
    } finally {
      clearInterval(watch);
    }
    expect(peak).toBe(1);
  });

  it('appends to a running batch: the new jobs run and the counters add up', async () => {
    const project = await createProject();
    const batch = await createBatch(project.project_id, [slow(1500), slow(1500)]);
    await batchAction(batch.batch_id, 'run');
    const appended = await batchAction(batch.batch_id, 'append', [fast(), fast(), fast()]);
    expect(appended.status).toBe(201);
    expect(appended.body).toMatchObject({ state: 'running', total_requests: 5, added_requests: 3 });
    const done = await waitForBatch(batch.batch_id, 'completed');
    expect(done).toMatchObject({ total_requests: 5, success_requests: 5 });
    expect(done.success_requests + done.failed_requests + done.timeout_requests).toBe(done.total_requests);
  });

  it('applies the collection rules to batch writes, dedups across writes and replays an Idempotency-Key', async () => {
    const project = await createProject();
    const first = fast();
    const created = await api('/v1/batches', {
      json: {
        project_id: project.project_id,
        requests: [{ url: first }, { url: first }, { url: 'http://10.0.0.1/' }, { url: first, screenshot: true }],
      },
    });
    expect(created.body).toMatchObject({ added_requests: 1, duplicates_skipped: 1, blocked_urls: [{ index: 2, reason: 'private_ip' }] });
    expect(created.body.invalid_items[0]).toMatchObject({ index: 3, errors: [{ field: 'screenshot' }] });
    const id = created.body.batch_id;
    const key = { 'idempotency-key': `append-${unique()}` };
    const body = { requests: [{ url: first }, { url: fast() }] };
    const once = await api(`/v1/batches/${id}/append-jobs`, { json: body, headers: key });
    expect(once.body).toMatchObject({ added_requests: 1, duplicates_skipped: 1, total_requests: 2 });
    const replay = await api(`/v1/batches/${id}/append-jobs`, { json: body, headers: key });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.body).toEqual(once.body);
    expect((await api(`/v1/batches/${id}/append-jobs`, { json: { requests: [] }, headers: key })).status).toBe(422);
    expect((await batchNow(id)).total_requests).toBe(2);
    const tooMany = await api(`/v1/batches/${id}/append-jobs`, {
      json: { requests: Array.from({ length: 1001 }, () => ({ url: first })) },
    });
    expect(tooMany.status).toBe(422);
  });

  it('closing a project cancels its live batches and refuses new batches and jobs', async () => {
    const project = await createProject();
    const running = await createBatch(project.project_id, [slow(1500), slow(1500)]);
    const open = await createBatch(project.project_id, [fast()]);
    await batchAction(running.batch_id, 'run');
    await eventually(async () => site.total(`/slow/`) > 0 && (await jobsOf(`batch_id=${running.batch_id}&status=running`)).length > 0, {
      what: 'running',
    });
    const closed = await api(`/v1/projects/${project.project_id}/close`, { method: 'PUT' });
    expect(closed.body.status).toBe('closed');
    expect(closed.body.cancelled_batches.sort()).toEqual([running.batch_id, open.batch_id].sort());
    expect((await batchNow(open.batch_id)).state).toBe('cancelled');
    await waitForBatch(running.batch_id, 'cancelled');
    expect((await api('/v1/batches', { json: { project_id: project.project_id } })).body).toMatchObject({
      error_code: 'invalid_state',
      state: 'closed',
    });
    expect((await batchAction(open.batch_id, 'append')).status).toBe(409);
  });

  it('cancels a batch: jobs that never ran are never fetched nor charged, in-flight ones finish, the webhook fires once', async () => {
    const project = await createProject({ max_concurrent_jobs: 2, callback_url: receiver.url });
    const urls = Array.from({ length: 10 }, () => slow(600));
    const batch = await createBatch(project.project_id, urls);
    expect(batch.callback_url).toBe(receiver.url);
    await batchAction(batch.batch_id, 'run');
    await eventually(async () => urls.some((u) => site.arrivals.has(new URL(u).pathname)), { what: 'first job started' });
    const cancel = await batchAction(batch.batch_id, 'cancel');
    expect(cancel.status).toBe(200);
    const done = await waitForBatch(batch.batch_id, 'cancelled');
    expect(done.cancelled_requests).toBeGreaterThanOrEqual(6);
    expect(done.success_requests + done.failed_requests + done.timeout_requests).toBe(10);
    expect(done.credits_charged).toBe(done.success_requests);

    const jobs = await jobsOf(`batch_id=${batch.batch_id}`);
    const cancelled = jobs.filter((j) => j.status === 'cancelled');
    expect(cancelled).toHaveLength(done.cancelled_requests);
    for (const job of cancelled) {
      expect(job).toMatchObject({ credits: 0, started_at: null, error: 'cancelled' });
      expect(site.arrivals.get(new URL(job.url).pathname)).toBeUndefined();
      expect((await api(`/v1/jobs/${job.job_id}/data`)).body.detail.error_code).toBe('job_cancelled');
    }
    expect(jobs.reduce((sum, j) => sum + j.credits, 0)).toBe(done.credits_charged);
    // One meaning of failed: the counters, /v1/jobs by outcome and the project summary agree.
    const outcomes = { success: 0, failed: 0, timeout: 0, cancelled: 0 } as Record<string, number>;
    for (const job of jobs) outcomes[job.outcome] += 1;
    expect(outcomes).toEqual({
      success: done.success_requests,
      failed: done.failed_requests - done.cancelled_requests,
      timeout: done.timeout_requests,
      cancelled: done.cancelled_requests,
    });
    expect(await jobsOf(`batch_id=${batch.batch_id}&outcome=failed,cancelled`)).toHaveLength(done.failed_requests);
    const summary = (await api('/v1/projects/summary')).body.items.find((p: any) => p.project_id === project.project_id);
    expect(summary.outcomes).toEqual(outcomes);

    await eventually(async () => receiver.bodies.some((d) => d.body.batch_id === batch.batch_id), { what: 'webhook' });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const deliveries = receiver.bodies.filter((d) => d.body.batch_id === batch.batch_id);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(deliveries[0].event).toBe('batch.completed');
    expect(deliveries[0].body).toMatchObject({
      event: 'batch.completed',
      project_id: project.project_id,
      state: 'cancelled',
      total_requests: 10,
      cancelled_requests: done.cancelled_requests,
      results_url: expect.stringContaining(`/v1/jobs?batch_id=${batch.batch_id}`),
    });
    await eventually(async () => (await batchNow(batch.batch_id)).callback_status === 'sent', { what: 'callback_status sent' });

    // Its delivery log, and a redelivery: the same delivery, one more attempt.
    const log = await api(`/v1/batches/${batch.batch_id}/webhook-deliveries`);
    expect(log.body).toMatchObject({
      run_id: batch.batch_id,
      callback_url: receiver.url,
      status: 'sent',
      attempts: [{ attempt: 1, outcome: 'sent' }],
    });
    expect((await api(`/v1/batches/${batch.batch_id}/webhook-deliveries/redeliver`, { method: 'POST' })).status).toBe(202);
    await eventually(async () => receiver.bodies.filter((d) => d.body.batch_id === batch.batch_id).length === 2, { what: 'redelivery' });
    const again = await eventually(
      async () => {
        const now = (await api(`/v1/batches/${batch.batch_id}/webhook-deliveries`)).body;
        return now.attempts.length === 2 ? now : null;
      },
      { what: 'redelivery logged' },
    );
    expect(again.attempts[1]).toMatchObject({ attempt: 2, manual: true, outcome: 'sent' });
    const other = await call(url, `/v1/batches/${batch.batch_id}/webhook-deliveries`, { token: otherToken });
    expect([other.status, other.body.error_code]).toEqual([404, 'webhook_not_found']);
  });

  it('cancels a collection run: cancelled jobs show as failed with error "cancelled", the invariant holds, the webhook fires once', async () => {
    // More jobs than the workers take at once (JOB_WORKER_CONCURRENCY 16): the rest wait, and are cancelled.
    const urls = Array.from({ length: 30 }, () => slow(800));
    const collection = await api('/v1/async/collections', {
      json: { name: 'to cancel', callback_url: receiver.url, requests: urls.map((u) => ({ url: u })) },
    });
    const cid = collection.body.id;
    const run = await api(`/v1/async/collections/${cid}/run`, { method: 'POST' });
    const rid = run.body.run_id;
    const cancel = await api(`/v1/async/collections/${cid}/runs/${rid}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(200);
    const done = await eventually(
      async () => {
        const r = (await api(`/v1/async/collections/${cid}/runs/${rid}`)).body;
        return r.status === 'completed' ? r : null;
      },
      { what: 'run completed' },
    );
    expect(done.cancelled_requests).toBeGreaterThan(0);
    expect(done.success_requests + done.failed_requests + done.timeout_requests).toBe(30);
    expect(done.failed_requests).toBeGreaterThanOrEqual(done.cancelled_requests);
    const cancelledJobs = done.failed_jobs.filter((j: any) => j.error === 'cancelled');
    expect(cancelledJobs).toHaveLength(done.cancelled_requests);
    expect(cancelledJobs.every((j: any) => j.status === 'failed')).toBe(true);
    const listed = await api(`/v1/async/collections/${cid}/runs/${rid}/jobs?status_filter=failed`);
    expect(listed.body.items.filter((j: any) => j.message === 'Cancelled before it ran.')).toHaveLength(done.cancelled_requests);
    expect(listed.body.items.every((j: any) => j.status === 'failed')).toBe(true);
    expect((await api(`/v1/async/collections/${cid}/runs/${rid}/cancel`, { method: 'POST' })).body).toMatchObject({
      error_code: 'invalid_state',
      state: 'cancelled',
    });
    await eventually(async () => receiver.bodies.some((d) => d.body.run_id === rid), { what: 'run webhook' });
    await new Promise((resolve) => setTimeout(resolve, 800));
    const deliveries = receiver.bodies.filter((d) => d.body.run_id === rid);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].body).toMatchObject({ event: 'run.completed', failed_requests: done.failed_requests });
    expect(deliveries[0].event).toBe('run.completed');
  });

  it("sums the credit summary from the ledger: /v1/sync/billing's total, every kind and every project", async () => {
    const project = await createProject();
    const batch = await createBatch(project.project_id, [fast(), fast(), fast()]);
    await batchAction(batch.batch_id, 'run');
    await waitForBatch(batch.batch_id, 'completed');
    expect((await api('/v1/sync/scrape', { json: { url: fast() } })).status).toBe(200);

    const summary = (await api('/v1/credits/summary')).body;
    const billing = (await api('/v1/sync/billing')).body.clients[clientId];
    const db = env.platform.gateway.get<symbol, DatabaseConnection>(DATABASE);
    const [ledger] = await db.sql.query<{ total: number }>(
      'select coalesce(sum(credits), 0)::int as total from credit_ledger_entries where client_id = $1 and month = $2',
      [clientId, summary.month],
    );
    const perProject = await db.sql.query<{ projectId: string; credits: number }>(
      'select project_id "projectId", sum(credits)::int as credits from credit_ledger_entries where client_id = $1 and month = $2 and project_id is not null group by 1',
      [clientId, summary.month],
    );
    expect(summary.used).toBe(ledger.total);
    expect(summary.used).toBe(billing.credits.total);
    const { simple, browser, download, viability } = summary.by_kind;
    expect(simple + browser + download + viability).toBe(summary.used);
    expect(summary.by_project.reduce((s: number, p: any) => s + p.credits, 0) + summary.outside_projects).toBe(summary.used);
    expect([...summary.by_project].sort((a: any, b: any) => a.project_id.localeCompare(b.project_id))).toEqual(
      perProject.map((p) => ({ project_id: p.projectId, credits: p.credits })).sort((a, b) => a.project_id.localeCompare(b.project_id)),
    );
    expect(summary.by_project.find((p: any) => p.project_id === project.project_id).credits).toBe(3);
    expect(summary).toMatchObject({ plan: 'scale', held: 0 });
    expect(summary.remaining).toBe(summary.limit - summary.used);
    const projects = (await api('/v1/projects/summary')).body.items;
    expect(projects.find((p: any) => p.project_id === project.project_id)).toMatchObject({
      credits_used_this_month: 3,
      jobs: { completed: 3, pending: 0, running: 0 },
      has_capacity: true,
    });
  });

  it("answers another client's projects, batches and jobs with 404", async () => {
    const project = await createProject();
    const batch = await createBatch(project.project_id, [fast()]);
    await batchAction(batch.batch_id, 'run');
    await waitForBatch(batch.batch_id, 'completed');
    const [job] = await jobsOf(`batch_id=${batch.batch_id}`);
    const as = (p: string, init: Parameters<typeof call>[2] = {}) => call(url, p, { token: otherToken, ...init });
    const pid = project.project_id;
    const bid = batch.batch_id;
    const answers = [
      [await as(`/v1/projects/${pid}`), 'project_not_found'],
      [await as(`/v1/projects/${pid}/pause`, { method: 'PUT' }), 'project_not_found'],
      [await as(`/v1/projects/${pid}/close`, { method: 'PUT' }), 'project_not_found'],
      [await as('/v1/batches', { json: { project_id: pid } }), 'project_not_found'],
      [await as(`/v1/batches/${bid}`), 'batch_not_found'],
      [await as(`/v1/batches/${bid}/cancel`, { method: 'POST' }), 'batch_not_found'],
      [await as(`/v1/batches/${bid}/append-jobs`, { json: { requests: [] } }), 'batch_not_found'],
      [await as(`/v1/jobs?project_id=${pid}`), 'project_not_found'],
      [await as(`/v1/jobs?batch_id=${bid}`), 'batch_not_found'],
    ] as const;
    for (const [res, code] of answers) expect([res.status, res.body.error_code]).toEqual([404, code]);
    const data = await as(`/v1/jobs/${job.job_id}/data`);
    expect([data.status, data.body.detail.error_code]).toEqual([404, 'job_id_invalid']);
    expect((await as('/v1/jobs')).body.items).toEqual([]);
    expect((await api(`/v1/projects/${pid}`)).body.status).toBe('active');
  });

  it('drains /v1/jobs through cursors exactly once, and refuses a cursor under other filters', async () => {
    const project = await createProject();
    const urls = Array.from({ length: 23 }, () => fast());
    const batch = await createBatch(project.project_id, urls);
    const jobs = await jobsOf(`project_id=${project.project_id}`);
    expect(jobs.map((j) => j.url)).toEqual(urls);
    expect(new Set(jobs.map((j) => j.job_id)).size).toBe(23);
    // Spec 2.14's name too, so one client reads both listings alike.
    expect(jobs.every((j) => j.job_public_id === j.job_id)).toBe(true);
    expect(jobs.every((j) => j.status === 'pending' && j.batch_id === batch.batch_id)).toBe(true);
    const page = await api(`/v1/jobs?project_id=${project.project_id}&limit=5`);
    const other = await api(`/v1/jobs?batch_id=${batch.batch_id}&limit=5&cursor=${page.body.cursor_next}`);
    expect([other.status, other.body.error_code]).toEqual([400, 'invalid_cursor']);
    expect((await api('/v1/jobs?status=nope')).status).toBe(400);
    expect((await api('/v1/jobs?since=yesterday')).status).toBe(400);
    const future = await api(`/v1/jobs?project_id=${project.project_id}&since=2999-01-01T00:00:00Z`);
    expect(future.body.items).toEqual([]);
  });

  it('keeps a pause across a restart: nothing starts until resume', async () => {
    const project = await createProject({ max_concurrent_jobs: 1 });
    const urls = Array.from({ length: 6 }, () => slow(150));
    const batch = await createBatch(project.project_id, urls);
    await batchAction(batch.batch_id, 'run');
    await eventually(async () => (await batchNow(batch.batch_id)).success_requests >= 1, { what: 'a job done' });
    await batchAction(batch.batch_id, 'pause');
    await eventually(async () => (await jobsOf(`batch_id=${batch.batch_id}&status=running`)).length === 0, { what: 'idle' });
    await env.stop();
    env = await startInProcessPlatform(platformEnv());
    url = env.url;
    const arrived = site.total('/slow/');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(site.total('/slow/')).toBe(arrived);
    expect((await batchNow(batch.batch_id)).state).toBe('paused');
    expect((await batchAction(batch.batch_id, 'resume')).body.state).toBe('running');
    expect(await waitForBatch(batch.batch_id, 'completed')).toMatchObject({ success_requests: 6 });
    for (const u of urls) expect(site.arrivals.get(new URL(u).pathname)).toBe(1);
  });
});
