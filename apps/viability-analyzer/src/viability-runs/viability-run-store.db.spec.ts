import { applyMigrations, DatabaseConnection, openDatabase } from '@lib/persistence';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgresAvailable } from '../../../../test/support/infrastructure';
import { createTestDatabase, TestDatabase } from '../../../../test/support/postgres-database';
import { ViabilityRunStore } from './viability-run-store';

// Postgres too where it runs: only there do parallel claims really race (PGlite has one connection).
const backends = ['embedded', ...(postgresAvailable() ? ['postgres'] : [])] as const;

/** Viability runs as stored, and the database as their work queue, with a clock the test moves. */
describe.each(backends)('ViabilityRunStore (%s database)', (backend) => {
  let dir: string;
  let postgres: TestDatabase | null = null;
  let db: DatabaseConnection;
  const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };
  let store: ViabilityRunStore;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'viability-'));
    postgres = backend === 'postgres' ? await createTestDatabase('viability_store') : null;
    db = await openDatabase({ databaseUrl: postgres?.url ?? null, dataDir: dir });
    await applyMigrations(db.sql);
    store = new ViabilityRunStore(db, clock);
  });
  afterAll(async () => {
    await db.release();
    await postgres?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    clock.offsetMs = 0;
    await db.sql.query('delete from viability_runs');
  });

  it('keeps results null until the last URL, then gives them in request order', async () => {
    const runId = randomUUID();
    await store.create({ runId, clientId: 'c1', depth: 'standard', urls: ['https://a.example/', 'https://b.example/', 'https://c.example/'] });
    const claims = [await store.claimNext(60_000), await store.claimNext(60_000), await store.claimNext(60_000)];
    expect(claims.map((c) => c?.url)).toEqual(['https://a.example/', 'https://b.example/', 'https://c.example/']);
    expect(await store.claimNext(60_000)).toBeNull();
    // Finished out of order: the results still follow the request.
    for (const claim of [claims[2]!, claims[0]!]) expect(await store.complete(claim, { url: claim.url })).toBe(true);
    expect(await store.get('c1', runId)).toMatchObject({ status: 'in_progress', totalUrls: 3, completedUrls: 2, results: null, depth: 'standard' });
    expect(await store.complete(claims[1]!, { url: claims[1]!.url })).toBe(true);
    const done = await store.get('c1', runId);
    expect(done).toMatchObject({ status: 'completed', completedUrls: 3, results: [{ url: 'https://a.example/' }, { url: 'https://b.example/' }, { url: 'https://c.example/' }] });
    expect(done!.completedAt).toBeInstanceOf(Date);
  });

  it('takes over the URL of a worker whose lease ran out, and counts it once', async () => {
    const runId = randomUUID();
    await store.create({ runId, clientId: 'c1', depth: 'quick', urls: ['https://slow.example/'] });
    const first = await store.claimNext(5_000);
    expect(await store.claimNext(5_000)).toBeNull();
    clock.offsetMs = 6_000;
    const second = await store.claimNext(5_000);
    expect(second).toMatchObject({ runId, position: 0, attempt: 2 });
    expect(await store.complete(second!, { attempt: 2 })).toBe(true);
    // The first worker comes back late: its answer is not counted again.
    expect(await store.complete(first!, { attempt: 1 })).toBe(false);
    expect(await store.get('c1', runId)).toMatchObject({ status: 'completed', completedUrls: 1, results: [{ attempt: 2 }] });
  });

  it('hands one URL to one of many parallel claimers', async () => {
    const runId = randomUUID();
    await store.create({ runId, clientId: 'c1', depth: 'quick', urls: Array.from({ length: 20 }, (_, i) => `https://s${i}.example/`) });
    const claims = await Promise.all(Array.from({ length: 30 }, () => store.claimNext(60_000)));
    const taken = claims.filter((c) => c !== null).map((c) => c!.position);
    expect(taken.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('shows a client only its own runs, newest first, page by page; prunes old ones', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      clock.offsetMs = i * 1000;
      const runId = randomUUID();
      ids.push(runId);
      await store.create({ runId, clientId: 'c1', depth: 'quick', urls: ['https://x.example/'] });
    }
    await store.create({ runId: randomUUID(), clientId: 'c2', depth: 'quick', urls: ['https://y.example/'] });
    expect(await store.get('c2', ids[0]!)).toBeNull();
    const first = await store.list('c1', 2);
    const second = await store.list('c1', 2, first[1]!.runId);
    const third = await store.list('c1', 2, second[1]!.runId);
    expect([...first, ...second, ...third].map((r) => r.runId)).toEqual([...ids].reverse());
    clock.offsetMs = 0;
    expect(await store.prune(new Date(Date.now() + 2500))).toBe(3);
    expect((await store.list('c1', 10)).length).toBe(2);
  });
});
