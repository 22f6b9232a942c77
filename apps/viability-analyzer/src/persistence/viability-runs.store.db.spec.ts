import type { DatabaseConnection } from '@lib/persistence';
import { randomUUID } from 'node:crypto';
import { MovableClock } from '../../../../test/support/movable-clock';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { ViabilityRunStore } from './viability-runs.store';

/** Viability runs as stored, and the database as their work queue, with a clock the test moves. */
describe.each(DATABASE_BACKENDS)('ViabilityRunStore (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  const clock = new MovableClock();
  let store: ViabilityRunStore;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'viability_store'));
    store = new ViabilityRunStore(db, clock);
  });
  afterAll(async () => close());
  beforeEach(async () => {
    clock.offsetMs = 0;
    await db.sql.query('delete from viability_runs');
  });

  it('keeps results null until the last URL, then gives them in request order', async () => {
    const runId = randomUUID();
    await store.create({
      runId,
      clientId: 'c1',
      depth: 'standard',
      urls: ['https://a.example/', 'https://b.example/', 'https://c.example/'],
    });
    const claims = [await store.claimNext(60_000), await store.claimNext(60_000), await store.claimNext(60_000)];
    expect(claims.map((c) => c?.url)).toEqual(['https://a.example/', 'https://b.example/', 'https://c.example/']);
    expect(await store.claimNext(60_000)).toBeNull();
    // Finished out of order: the results still follow the request.
    for (const claim of [claims[2]!, claims[0]!]) expect(await store.complete(claim, { url: claim.url })).toBe(true);
    expect(await store.get('c1', runId)).toMatchObject({
      status: 'in_progress',
      totalUrls: 3,
      completedUrls: 2,
      results: null,
      depth: 'standard',
    });
    expect(await store.complete(claims[1]!, { url: claims[1]!.url })).toBe(true);
    const done = await store.get('c1', runId);
    expect(done).toMatchObject({
      status: 'completed',
      completedUrls: 3,
      results: [{ url: 'https://a.example/' }, { url: 'https://b.example/' }, { url: 'https://c.example/' }],
    });
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

  it("holds one client to its share of live leases, so another client's run is not starved, and frees the share as leases end", async () => {
    const big = randomUUID();
    const small = randomUUID();
    await store.create({
      runId: big,
      clientId: 'greedy',
      depth: 'quick',
      urls: Array.from({ length: 10 }, (_, i) => `https://g${i}.example/`),
      monthlyCredits: 500,
    });
    clock.offsetMs = 10;
    await store.create({ runId: small, clientId: 'patient', depth: 'quick', urls: ['https://p.example/'], monthlyCredits: null });
    const claims = [await store.claimNext(5_000, 2), await store.claimNext(5_000, 2), await store.claimNext(5_000, 2)];
    // The greedy client's older run fills its two places; the third claim goes to the other client.
    expect(claims.map((c) => c?.clientId)).toEqual(['greedy', 'greedy', 'patient']);
    expect(claims[0]).toMatchObject({ monthlyCredits: 500 });
    expect(claims[2]).toMatchObject({ monthlyCredits: null });
    expect(await store.claimNext(5_000, 2)).toBeNull();
    // A finished URL frees a place; a renewed lease keeps one; an expired lease frees one too.
    await store.complete(claims[0]!, { url: claims[0]!.url });
    expect(await store.claimNext(5_000, 2)).toMatchObject({ clientId: 'greedy', position: 2 });
    clock.offsetMs = 4_000;
    expect(await store.renew(claims[1]!, 5_000)).toBe(true);
    clock.offsetMs = 6_000;
    // Position 2's lease (taken at 0 s for 5 s) ran out: it is taken over before any new URL.
    expect(await store.claimNext(5_000, 2)).toMatchObject({ clientId: 'greedy', position: 2, attempt: 2 });
    // The greedy client is full again (the renewed lease and this one); the other's expired URL is next.
    expect(await store.claimNext(5_000, 2)).toMatchObject({ clientId: 'patient', attempt: 2 });
    expect(await store.claimNext(5_000, 2)).toBeNull();
  });

  it('puts every URL under analysis back in the queue after an embedded restart', async () => {
    const runId = randomUUID();
    await store.create({ runId, clientId: 'c1', depth: 'quick', urls: ['https://a.example/', 'https://b.example/'] });
    const held = await store.claimNext(600_000);
    expect(await store.requeueAbandoned()).toBe(1);
    const again = await store.claimNext(600_000);
    expect(again).toMatchObject({ position: held!.position, attempt: 2 });
    // The old attempt's answer no longer counts.
    expect(await store.complete(held!, {})).toBe(false);
    expect(await store.renew(held!, 1000)).toBe(false);
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
