import { loadPlatformConfig } from '@lib/config';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { type RunningPlatform, startPlatform } from '../../apps/platform/src/platform';
import { postgresAvailable, TEST_WEBHOOK_SECRET_KEYS } from '../support/infrastructure';
import { createTestDatabase, type TestDatabase } from '../support/postgres-database';
import { crawlJobs } from './support/crawl-jobs';
import { http } from './support/http';

/**
 * A database that today's release finds is one the previous release wrote: issue 62 changed the
 * run model's code and migrated the schema (20261205000000_one_run_model), so a dump taken from
 * main before the change (test/fixtures/databases, made by commit c6f0e4e through its own API) is
 * loaded, migrated forward by this release's start, and read back through the public API: every
 * run kind with its counters, jobs and stored results, and a write to a run the old release opened.
 */
const FIXTURE = path.join(__dirname, '../fixtures/databases/before-one-run-model.sql');
// The ids and the demo client's token the dump holds (its README says how it was made).
const DEMO_TOKEN = 'demo_LAJrMfsbvfD1h1SBlDhlvL622BN1DPQz';
const COLLECTION = 'cfdd41af-072a-4236-a03d-c0482ac7e789';
const COLLECTION_RUN = '40ebfea6-faa1-49fc-a41d-9a783252b76b';
const PROJECT = 'f53a2e1b-4e59-4523-a8d4-b2726f47caba';
const COMPLETED_BATCH = '662ab0c8-eaba-420c-8338-11d47385215c';
const OPEN_BATCH = '82f4c4b2-1515-48ec-a125-4c048dfdee4f';
const CRAWL = 'd3a2c2fa-ca1d-4740-aabc-2960745f26fc';
// The fixture site the dump's pages came from; nothing here fetches it.
const SITE = 'http://127.0.0.1:47811';

(postgresAvailable() ? describe : describe.skip)('a database written before the one run model, migrated forward', () => {
  let database: TestDatabase;
  let platform: RunningPlatform;
  let dataDir: string;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase('migration_forward');
    // Its own connection: the dump empties search_path for the session that loads it.
    const loader = new Client({ connectionString: database.url });
    await loader.connect();
    try {
      await loader.query(fs.readFileSync(FIXTURE, 'utf8'));
    } finally {
      await loader.end();
    }
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-migration-'));
    platform = await startPlatform(
      loadPlatformConfig({
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        DATABASE_URL: database.url,
        WEBHOOK_SECRET_KEYS: TEST_WEBHOOK_SECRET_KEYS,
        ADMIN_TOKEN: 'adm_migration_forward_token',
        BROWSER_WARM: 'false',
        // The dump's site, allowed as a target so a job can be appended to it; nothing fetches it here.
        TARGET_ALLOWLIST: new URL(SITE).host,
      }),
    );
    base = platform.url;
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('applies the migrations the dump did not have, after the ones it had', async () => {
    const reader = new Client({ connectionString: database.url });
    await reader.connect();
    try {
      const { rows } = await reader.query<{ migration_name: string }>(
        'select migration_name from _prisma_migrations order by migration_name',
      );
      const names = rows.map((r) => r.migration_name);
      expect(names).toContain('20261204000000_crawl_page_twins');
      expect(names).toContain('20261205000000_one_run_model');
      const { rows: kinds } = await reader.query<{ kind: string; n: number }>(
        'select kind, count(*)::int n from runs group by kind order by kind',
      );
      expect(kinds).toEqual([
        { kind: 'batch', n: 2 },
        { kind: 'collection', n: 1 },
        { kind: 'crawl', n: 1 },
      ]);
    } finally {
      await reader.end();
    }
  });

  it("reads a collection's run, its jobs and a stored result", async () => {
    const run = await http(base, `/v1/async/collections/${COLLECTION}/runs/${COLLECTION_RUN}`, { token: DEMO_TOKEN });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', total_requests: 2, success_requests: 2, failed_requests: 0 });
    const jobs = await http(base, `/v1/async/collections/${COLLECTION}/runs/${COLLECTION_RUN}/jobs`, { token: DEMO_TOKEN });
    expect(jobs.status).toBe(200);
    const items = jobs.body.items as Array<{ job_id: string; custom_id: string; status: string }>;
    expect(items.map((j) => [j.custom_id, j.status]).sort()).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
    ]);
    const b = items.find((j) => j.custom_id === 'b')!;
    const result = await http(base, `/v1/async/collections/${COLLECTION}/runs/${COLLECTION_RUN}/jobs/${b.job_id}/result`, {
      token: DEMO_TOKEN,
    });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ url: `${SITE}/b.html`, statusCode: 200 });
    expect(JSON.stringify(result.body)).toContain('Beta, the other page linked from home.');
  });

  it("reads a project's batches, one completed and one still open, and their jobs' data", async () => {
    expect((await http(base, `/v1/projects/${PROJECT}`, { token: DEMO_TOKEN })).body).toMatchObject({ project_id: PROJECT });
    const completed = await http(base, `/v1/batches/${COMPLETED_BATCH}`, { token: DEMO_TOKEN });
    expect(completed.body).toMatchObject({ state: 'completed', status: 'completed', total_requests: 2, success_requests: 2 });
    const open = await http(base, `/v1/batches/${OPEN_BATCH}`, { token: DEMO_TOKEN });
    expect(open.body).toMatchObject({ state: 'open', status: 'in_progress', total_requests: 1, success_requests: 0 });
    const jobs = await http(base, `/v1/jobs?batch_id=${COMPLETED_BATCH}`, { token: DEMO_TOKEN });
    const items = jobs.body.items as Array<{ job_id: string; custom_id: string; status: string }>;
    expect(items.map((j) => j.custom_id).sort()).toEqual(['sku-1', 'sku-2']);
    const data = await http(base, `/v1/jobs/${items.find((j) => j.custom_id === 'sku-1')!.job_id}/data`, { token: DEMO_TOKEN });
    expect(data.status).toBe(200);
    expect(data.body).toMatchObject({ custom_id: 'sku-1', status: 'completed', url: `${SITE}/a.html` });
  });

  it('reads a crawl with its counters and every page it scraped', async () => {
    const crawl = await http(base, `/v1/crawl/${CRAWL}`, { token: DEMO_TOKEN });
    expect(crawl.status).toBe(200);
    expect(crawl.body).toMatchObject({ state: 'completed', discovered: 3, completed: 3, failed: 0, credits_charged: 3 });
    const pages = await crawlJobs(base, DEMO_TOKEN, CRAWL);
    expect(pages.map((p) => [p.url, p.status]).sort()).toEqual([
      [`${SITE}/`, 'completed'],
      [`${SITE}/a.html`, 'completed'],
      [`${SITE}/b.html`, 'completed'],
    ]);
  });

  it('takes a write to a run the previous release opened: jobs appended to the open batch', async () => {
    const appended = await http(base, `/v1/batches/${OPEN_BATCH}/append-jobs`, {
      token: DEMO_TOKEN,
      json: { requests: [{ url: `${SITE}/b.html`, custom_id: 'later-b' }] },
    });
    expect(appended.status).toBe(201);
    expect(appended.body).toMatchObject({ state: 'open', total_requests: 2, added_requests: 1 });
  });
});
