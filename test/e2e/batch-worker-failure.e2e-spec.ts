import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { distributedInfrastructureAvailable, TEST_NATS_URL, TEST_WEBHOOK_SECRET_KEYS } from '../support/infrastructure';
import { createTestDatabase, type TestDatabase } from '../support/postgres-database';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { http } from './support/http';
import { buildDist, type ServiceProcess, startService, waitFor } from './support/service-process';

/**
 * A scrape-engine process killed in the middle of a run (distributed runtime: JetStream dispatch,
 * Postgres). Its jobs must not stay `processing`: their leases expire, the sweeper dispatches them
 * again under a new attempt (retries_attempted = 1), the surviving worker finishes them, and the
 * run completes with the invariant intact and every job charged once.
 */
(distributedInfrastructureAvailable() ? describe : describe.skip)('a scrape-engine worker killed mid-run (NATS + Postgres)', () => {
  let site: FixtureSite;
  let database: TestDatabase;
  let env: InProcessPlatform;
  let worker: ServiceProcess;

  beforeAll(async () => {
    buildDist();
    site = await startFixtureSite();
    database = await createTestDatabase('batch-kill');
    const shared = {
      NATS_URL: TEST_NATS_URL,
      DATABASE_URL: database.url,
      WEBHOOK_SECRET_KEYS: TEST_WEBHOOK_SECRET_KEYS,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      BROWSER_WARM: 'false',
      JOB_LEASE_SECONDS: '3',
      JOB_WORKER_CONCURRENCY: '4',
    };
    // The test process runs every context (one worker among them); a second worker runs alone.
    env = await startInProcessPlatform({ ...shared, JOB_SWEEP_INTERVAL_MS: '500' });
    worker = startService('scrape-engine', { ...shared, LOG_LEVEL: 'info' });
    await waitFor('the second worker to start', async () => worker.output().includes('scrape-engine started'), [worker], 60_000);
  }, 240_000);
  afterAll(async () => {
    await worker?.stop('SIGKILL');
    await env?.stop();
    await database?.drop();
    await site?.close();
  });

  it("re-dispatches the dead worker's jobs and completes the run exactly once", async () => {
    const token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } })).body.token;
    const requests = Array.from({ length: 24 }, (_, i) => ({ url: `${site.url}/slow?ms=2500&i=${i}`, custom_id: `s${i}` }));
    const collection = await http(env.url, '/v1/async/collections', { token, json: { name: 'kill-a-worker', requests } });
    const run = await http(env.url, `/v1/async/collections/${collection.body.id}/run`, { token, method: 'POST' });
    expect(run.status).toBe(201);
    const jobs = `/v1/async/collections/${collection.body.id}/runs/${run.body.run_id}/jobs`;

    // Kill the separate worker once it is holding jobs (both workers pull from the same JetStream consumer).
    await new Promise((r) => setTimeout(r, 1200));
    worker.child.kill('SIGKILL');
    await worker.exited;

    let status: any;
    await waitFor(
      'the run to complete',
      async () => {
        status = (await http(env.url, `/v1/async/collections/${collection.body.id}/runs/${run.body.run_id}`, { token })).body;
        return status.status === 'completed';
      },
      [],
      120_000,
    );
    expect(status.total_requests).toBe(24);
    expect(status.success_requests + status.failed_requests + status.timeout_requests).toBe(24);
    expect(status.success_requests).toBe(24);
    expect(status.credits_charged).toBe(24);

    const listed = (await http(env.url, `${jobs}?limit=100`, { token })).body.items;
    expect(listed).toHaveLength(24);
    expect(listed.every((j: any) => j.status === 'completed' && j.is_success === true)).toBe(true);
    // The killed worker held some jobs: they were dispatched again, and their retry is counted.
    expect(listed.filter((j: any) => j.retries_attempted === 1).length).toBeGreaterThan(0);
    expect(listed.every((j: any) => j.retries_attempted <= 1)).toBe(true);
  });
});

/**
 * The embedded runtime's job queue lives in memory. A restart in the middle of a run must lose
 * nothing: jobs in hand finish before the workers stop, dispatched jobs are published again at
 * start, and the run completes with every job counted once.
 */
describe('a run across a restart of the embedded platform', () => {
  let site: FixtureSite;
  let dataDir: string;

  beforeAll(async () => {
    site = await startFixtureSite();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'batch-restart-'));
  });
  afterAll(async () => {
    await site?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes every job exactly once after the restart', async () => {
    const env = {
      DATA_DIR: dataDir,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      BROWSER_WARM: 'false',
      JOB_WORKER_CONCURRENCY: '2',
      ADMIN_TOKEN: 'adm_restart_test_token_0001',
      DEMO_TOKEN: 'demo_restart_test_token_0001',
    };
    const first = await startInProcessPlatform(env);
    const token = (await http(first.url, '/v1/admin/clients', { token: first.adminToken, json: { plan: 'pro' } })).body.token;
    const requests = Array.from({ length: 10 }, (_, i) => ({ url: `${site.url}/slow?ms=600&r=${i}` }));
    const collection = (await http(first.url, '/v1/async/collections', { token, json: { name: 'restart', requests } })).body.id;
    const run = (await http(first.url, `/v1/async/collections/${collection}/run`, { token, method: 'POST' })).body;
    await new Promise((r) => setTimeout(r, 900));
    await first.stop();

    const second = await startInProcessPlatform(env);
    try {
      let status: any;
      await waitFor(
        'the run to complete after the restart',
        async () => {
          status = (await http(second.url, `/v1/async/collections/${collection}/runs/${run.run_id}`, { token })).body;
          return status.status === 'completed';
        },
        [],
        60_000,
      );
      expect(status).toMatchObject({
        total_requests: 10,
        success_requests: 10,
        failed_requests: 0,
        timeout_requests: 0,
        credits_charged: 10,
      });
      const jobs = (await http(second.url, `/v1/async/collections/${collection}/runs/${run.run_id}/jobs`, { token })).body.items;
      expect(jobs.map((j: any) => j.job_public_id)).toEqual(run.job_ids);
      expect(jobs.every((j: any) => j.status === 'completed' && j.is_success)).toBe(true);
    } finally {
      await second.stop();
    }
  });
});
