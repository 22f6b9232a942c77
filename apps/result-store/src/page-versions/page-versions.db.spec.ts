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
  const runId = randomUUID();
  let minute = 0;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'page-versions'));
    versions = new PageVersions(new PageVersionStore(db));
  });
  afterAll(async () => close());

  const record = (url: string, content: string | null, extracted: Record<string, unknown> | null = null, jobId = randomUUID()) =>
    versions.record({
      client_id: 'versions',
      monitor_id: monitorId,
      run_id: runId,
      job_id: jobId,
      url,
      content,
      extracted,
      fetched_at: new Date(Date.UTC(2026, 11, 4, 10, minute++)).toISOString(),
    });
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

  it(`keeps the newest ${PAGE_VERSIONS_KEPT} versions of a page`, async () => {
    const url = 'https://shop.test/busy';
    for (let i = 0; i < PAGE_VERSIONS_KEPT + 5; i += 1) await record(url, `version ${i}`);
    expect((await stored(url)).n).toBe(PAGE_VERSIONS_KEPT);
    expect(await record(url, `version ${PAGE_VERSIONS_KEPT + 4}`)).toMatchObject({ change_status: 'same' });
  });
});
