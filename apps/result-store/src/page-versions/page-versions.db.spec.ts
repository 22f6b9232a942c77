import type { DatabaseConnection } from '@lib/persistence';
import { randomUUID } from 'node:crypto';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { PageVersionStore } from '../persistence/page-versions.store';
import { PAGE_VERSIONS_KEPT, PageVersions } from './page-versions';

/**
 * A monitored page's versions (decision 0038): new, same (storing nothing), changed with its
 * diffs, removed and back; a job asking again gets its first answer; old versions go past the count.
 */
describe.each(DATABASE_BACKENDS)('PageVersions (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  let versions: PageVersions;
  const monitorId = randomUUID();
  let minute = 0;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'page-versions'));
    versions = new PageVersions(new PageVersionStore(db));
  });
  afterAll(async () => {
    await versions.beforeApplicationShutdown();
    await close();
  });

  /** A page recorded by `into` (by default, in a tick of its own, as a first attempt). */
  const recordInto = (
    into: PageVersions,
    url: string,
    content: string | null,
    extracted: Record<string, unknown> | null = null,
    jobId = randomUUID(),
    attempt = 1,
    runId: string = randomUUID(),
  ) =>
    into.record({
      client_id: 'versions',
      monitor_id: monitorId,
      run_id: runId,
      job_id: jobId,
      attempt,
      url,
      content,
      extracted,
      fetched_at: new Date(Date.UTC(2026, 11, 4, 10, minute++)).toISOString(),
    });
  const record = (...args: Parameters<typeof recordInto> extends [PageVersions, ...infer Rest] ? Rest : never) =>
    recordInto(versions, ...args);
  const stored = async (url: string) =>
    (
      await db.sql.query<{ n: number; bytes: number }>(
        'select count(*)::int n, coalesce(sum(length(content)), 0)::int bytes from page_versions where monitor_id = $1 and url = $2',
        [monitorId, url],
      )
    )[0];

  it('tells new, same, changed (with both diffs), removed and back, storing nothing for a page seen unchanged', async () => {
    const url = 'https://shop.test/p';
    expect(await record(url, '# Shoe\n\nRed shoe.\n', { price: '10' })).toMatchObject({ change_status: 'new', previous_at: null });
    const afterNew = await stored(url);
    expect(await record(url, '# Shoe\n\nRed shoe.\n', { price: '10' })).toMatchObject({ change_status: 'same', diff: null });
    expect(await stored(url)).toEqual(afterNew);
    const changed = (await record(url, '# Shoe\n\nBlue shoe.\n', { price: '12' }))!;
    expect(changed.change_status).toBe('changed');
    expect(changed.previous_at).toBe('2026-12-04T10:00:00.000Z');
    expect(changed.diff).toContain('-Red shoe.');
    expect(changed.diff).toContain('+Blue shoe.');
    expect(changed.json_diff).toEqual([{ type: 'CHANGE', path: ['price'], value: '12', oldValue: '10' }]);
    expect(await record(url, null)).toMatchObject({ change_status: 'removed' });
    expect(await record(url, null)).toMatchObject({ change_status: 'same' });
    expect(await record(url, '# Shoe\n\nBlue shoe.\n', { price: '12' })).toMatchObject({ change_status: 'new' });
    expect(await record('https://shop.test/never', null)).toBeNull();
  });

  it("answers a job's repeat with its first comparison, never a second version", async () => {
    const url = 'https://shop.test/repeat';
    await record(url, 'one');
    const jobId = randomUUID();
    const first = await record(url, 'two', null, jobId);
    const again = await record(url, 'two', null, jobId);
    expect(again).toEqual(first);
    expect(first?.change_status).toBe('changed');
    expect((await stored(url)).n).toBe(2);
  });

  it("writes one version for a job's attempts recorded at once, and answers them alike", async () => {
    const url = 'https://shop.test/attempts';
    await record(url, 'one');
    const jobId = randomUUID();
    const answers = await Promise.all([1, 2, 3].map(() => record(url, 'two', null, jobId)));
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect((await stored(url)).n).toBe(2);
  });

  it('never forks a page whose versions are recorded at once by different jobs: each version has one successor', async () => {
    const url = 'https://shop.test/racing';
    await record(url, 'zero');
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => record(url, `content ${n}`)));
    expect(answers.map((a) => a?.change_status)).toEqual(['changed', 'changed', 'changed', 'changed', 'changed']);
    const chain = await db.sql.query<{ id: string; previous_id: string }>(
      'select id::text, previous_id::text from page_versions where monitor_id = $1 and url = $2 order by page_versions.id',
      [monitorId, url],
    );
    expect(chain).toHaveLength(6);
    expect(chain.map((v) => v.previous_id)).toEqual(['0', ...chain.slice(0, -1).map((v) => v.id)]);
  });

  it('confirms many pages seen unchanged at once, each against its own version', async () => {
    const urls = Array.from({ length: 40 }, (_, i) => `https://shop.test/many/${i}`);
    for (const url of urls) await record(url, `page ${url}`);
    const again = await Promise.all(urls.map((url, i) => record(url, i % 10 === 0 ? `moved ${url}` : `page ${url}`)));
    expect(again.map((a) => a?.change_status)).toEqual(urls.map((_, i) => (i % 10 === 0 ? 'changed' : 'same')));
    for (const url of urls) expect((await stored(url)).n).toBe(urls.indexOf(url) % 10 === 0 ? 2 : 1);
  });

  it("tells a tick's unchanged pages 'same' from the heads it read once, and leaves the rest to the store", async () => {
    const store = new PageVersionStore(db);
    const ticked = new PageVersions(store);
    const tick = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const page = (url: string, content: string, runId: string, jobId = randomUUID(), attempt = 1) =>
      recordInto(ticked, url, content, null, jobId, attempt, runId);
    const urls = ['https://shop.test/heads/a', 'https://shop.test/heads/b', 'https://shop.test/heads/c'];
    for (const url of urls) await page(url, `first ${url}`, tick(1));
    const heads = jest.spyOn(store, 'headsOf');
    const oneByOne = jest.spyOn(store, 'seenUnchanged');
    expect((await Promise.all(urls.map((url) => page(url, `first ${url}`, tick(2))))).map((c) => c?.change_status)).toEqual([
      'same',
      'same',
      'same',
    ]);
    expect(heads).toHaveBeenCalledTimes(1);
    expect(oneByOne).not.toHaveBeenCalled();

    // In tick 3 (heads read at its first page), job J changes page b; J asking again, and J's next
    // attempt finding the page as it was before, both get J's change, never "same".
    await page(urls[0], `first ${urls[0]}`, tick(3));
    const jobId = randomUUID();
    const change = await page(urls[1], 'second b', tick(3), jobId);
    expect(change?.change_status).toBe('changed');
    expect(await page(urls[1], 'second b', tick(3), jobId)).toEqual(change);
    expect(await page(urls[1], `first ${urls[1]}`, tick(3), jobId, 2)).toEqual(change);
    expect((await stored(urls[1])).n).toBe(2);
    heads.mockRestore();
    oneByOne.mockRestore();
    await ticked.beforeApplicationShutdown();
    const [seen] = await db.sql.query<{ moved: number }>(
      'select count(*)::int moved from page_versions where monitor_id = $1 and url = any($2::text[]) and last_seen_at > first_seen_at',
      [monitorId, urls],
    );
    expect(seen.moved).toBe(3);
  });

  it("prunes a monitor's history by age: superseded versions, unseen pages and old changes, never a newest version still seen", async () => {
    const store = new PageVersionStore(db);
    const [aged, unseen] = ['https://shop.test/aged', 'https://shop.test/unseen'];
    await record(aged, 'v1');
    await record(unseen, 'only');
    await record(aged, 'v2');
    const cutoff = new Date(Date.UTC(2026, 11, 4, 10, minute));
    await record(aged, 'v3');
    await record(aged, 'v3');
    await versions.beforeApplicationShutdown();
    await store.pruneVersionsBefore(cutoff, 10_000);
    await store.pruneChangesBefore(cutoff, 10_000);
    const contentsOf = async (url: string) =>
      (
        await db.sql.query<{ hash: string }>(
          'select content_hash hash from page_versions where monitor_id = $1 and url = $2 order by page_versions.id',
          [monitorId, url],
        )
      ).length;
    // v1 was superseded (by v2) before the cutoff; v2 only after it (by v3), so it stays.
    expect(await contentsOf(aged)).toBe(2);
    expect(await contentsOf(unseen)).toBe(0);
    const changes = await db.sql.query<{ url: string; change_status: string }>(
      'select url, change_status from page_changes where monitor_id = $1 and url = any($2::text[]) order by detected_at',
      [monitorId, [aged, unseen]],
    );
    expect(changes).toEqual([{ url: aged, change_status: 'changed' }]);
    // What is left still compares: v3 again is the same.
    expect(await record(aged, 'v3')).toMatchObject({ change_status: 'same' });
  });

  it("removes a crawl-scope monitor's pages a tick did not see, once, however each seen page was told 'same'", async () => {
    const scoped = randomUUID();
    const [first, second] = [randomUUID(), randomUUID()];
    const seen = (url: string, runId: string, attempt = 1) =>
      versions.record({
        client_id: 'versions',
        monitor_id: scoped,
        run_id: runId,
        job_id: randomUUID(),
        attempt,
        url,
        content: `the page ${url}`,
        extracted: null,
        fetched_at: new Date().toISOString(),
        crawl_scope: true,
      });
    for (const page of ['a', 'b', 'c']) expect(await seen(`https://site.test/${page}`, first)).toMatchObject({ change_status: 'new' });
    // Nothing unseen in the tick that saw every page.
    expect(await versions.recordUnseen({ client_id: 'versions', monitor_id: scoped, run_id: first })).toEqual({ removed: 0 });
    // The next tick sees a from the tick's heads (a first attempt) and b as a retried attempt (the store's path); c not at all.
    expect(await seen('https://site.test/a', second)).toMatchObject({ change_status: 'same' });
    expect(await seen('https://site.test/b', second, 2)).toMatchObject({ change_status: 'same' });
    expect(await versions.recordUnseen({ client_id: 'versions', monitor_id: scoped, run_id: second })).toEqual({ removed: 1 });
    expect(await versions.recordUnseen({ client_id: 'versions', monitor_id: scoped, run_id: second })).toEqual({ removed: 0 });
    expect(await versions.changesOfTick(second)).toEqual([
      expect.objectContaining({ url: 'https://site.test/c', change_status: 'removed', tick_id: second, job_id: null }),
    ]);
    // A page removed is not removed again by a later tick that does not see it either; seen again, it is new.
    const third = randomUUID();
    expect(await seen('https://site.test/c', third)).toMatchObject({ change_status: 'new' });
  });

  it(`keeps the newest ${PAGE_VERSIONS_KEPT} versions of a page`, async () => {
    const url = 'https://shop.test/busy';
    for (let i = 0; i < PAGE_VERSIONS_KEPT + 5; i += 1) await record(url, `version ${i}`);
    expect((await stored(url)).n).toBe(PAGE_VERSIONS_KEPT);
    expect(await record(url, `version ${PAGE_VERSIONS_KEPT + 4}`)).toMatchObject({ change_status: 'same' });
  });
});
