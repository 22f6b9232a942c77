import type { LlmsTxtReport } from '@lib/contracts';
import type { DatabaseConnection } from '@lib/persistence';
import { randomUUID } from 'node:crypto';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { pageJobId } from '../crawls/crawl-frontier';
import { CrawlStore, type PageCandidate } from './crawl.store';

/**
 * A page found at two depths counts at the smaller (docs/crawl.md): among the candidates of one
 * admission, and against a page the crawl already has whose links have not been read yet. A page
 * is still admitted once, and max_pages still counts it once.
 */
describe.each(DATABASE_BACKENDS)('CrawlStore admission depths (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  let store: CrawlStore;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'crawl-store'));
    store = new CrawlStore(db);
  });
  afterAll(async () => close());

  async function crawlWith(seeds: PageCandidate[], maxPages = 100, llmsTxt: LlmsTxtReport | null = null): Promise<string> {
    const id = randomUUID();
    await store.insert(
      {
        id,
        clientId: 'client-depth',
        url: 'https://example.com/',
        request: { url: 'https://example.com/', plan: { max_concurrency: 5, monthly_credits: null } },
        state: 'running',
        robotsStatus: 'none',
        maxPages,
        maxDepth: 3,
        pageCredits: 1,
        maxCredits: null,
        skipped: {},
        zeroPagesReason: null,
        llmsTxt,
        createdAt: new Date(),
      },
      seeds,
    );
    return id;
  }
  const page = (crawlId: string, path: string, depth: number): PageCandidate => ({
    key: `example.com${path}`,
    url: `https://example.com${path}`,
    depth,
    jobId: pageJobId(crawlId, `example.com${path}`),
  });
  const depths = async (crawlId: string) =>
    Object.fromEntries(
      (await db.sql.query<{ url: string; depth: number }>('select url, depth from crawl_pages where crawl_id = $1', [crawlId])).map((r) => [
        new URL(r.url).pathname,
        r.depth,
      ]),
    );

  it("keeps the site's llms.txt as the crawl read it (and null for a crawl that did not look)", async () => {
    const report: LlmsTxtReport = {
      url: 'https://example.com/llms.txt',
      status: 'found',
      title: 'Example',
      summary: 'Docs for “example” — in UTF-8',
      sections: [
        {
          name: 'Docs',
          optional: false,
          entries: [{ title: 'Start', url: 'https://example.com/start', description: null, in_scope: true }],
        },
      ],
      entries_total: 1,
    };
    const withFile = await crawlWith([], 10, report);
    const without = await crawlWith([], 10);
    expect((await store.byId(withFile))!.llmsTxt).toEqual(report);
    expect((await store.byId(without))!.llmsTxt).toBeNull();
  });

  it('keeps the smaller depth of a page listed twice among the seeds, whichever comes last', async () => {
    const placeholder = randomUUID();
    const id = await crawlWith([
      page(placeholder, '/', 0),
      page(placeholder, '/s', 1),
      page(placeholder, '/', 1),
      page(placeholder, '/s', 0),
    ]);
    expect(await depths(id)).toEqual({ '/': 0, '/s': 0 });
    expect((await store.byId(id))!.admitted).toBe(2);
  });

  it('lowers the depth of a page not yet read when it is found nearer, and leaves a read page alone', async () => {
    const id = await crawlWith([]);
    expect(await store.admit(id, [page(id, '/a', 3), page(id, '/b', 3), page(id, '/c', 2)], {})).toBe(3);
    await store.markPages(id, ['example.com/a'], 'queued');
    await store.markPages(id, ['example.com/b'], 'read');
    // Found again one level nearer: nothing admitted anew, /a (queued) and /c (new) move up, /b was read.
    expect(await store.admit(id, [page(id, '/a', 1), page(id, '/b', 1), page(id, '/c', 1), page(id, '/c', 2)], {})).toBe(0);
    expect(await depths(id)).toEqual({ '/a': 1, '/b': 3, '/c': 1 });
    // Never raised: a farther copy changes nothing.
    expect(await store.admit(id, [page(id, '/a', 4)], {})).toBe(0);
    expect(await depths(id)).toEqual({ '/a': 1, '/b': 3, '/c': 1 });
    expect((await store.byId(id))!.admitted).toBe(3);
  });
});
