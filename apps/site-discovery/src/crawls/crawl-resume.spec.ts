import { loadPlatformConfig } from '@lib/config';
import { SUBJECTS } from '@lib/contracts';
import type { FetchedResponse, SimpleFetcher } from '@lib/http-fetch';
import type { MessageBus } from '@lib/messaging';
import { systemClock } from '@lib/runtime';
import { normalUrl } from '@lib/url-normal-form';
import type { CrawlPageRow, CrawlStore, StoredCrawl } from '../persistence/crawl.store';
import { type PageCandidate, type SkipCounts, admissionOf, candidateOf } from './crawl-frontier';
import type { CrawlPlanner } from './crawl-planner';
import { CrawlRulebook } from './crawl-rulebook';
import { CrawlWorker } from './crawl-worker';

// A crawl driven through its worker with the job engine and the database replaced by memory:
// depth and max_pages over several passes, and a crawl that goes on after the orchestrator was
// lost mid-crawl with nothing fetched twice, nothing lost, sealed once. Fast (no database, no bus,
// no browser); the kill drills prove the same through real processes.

const CRAWL_ID = '6d7c1a3e-2b4f-4e5a-9c8d-1f2e3d4c5b6a';
const SITE: Record<string, string[]> = {
  '/': ['/a', '/b', 'https://other.example/x'],
  '/a': ['/c', '/'],
  '/b': ['/c', '/d'],
  '/c': ['/e'],
  '/d': [],
  '/e': [],
};
const url = (path: string) => (path.startsWith('http') ? path : `https://example.com${path}`);

/** The crawl tables in memory; admission is the store's own decision (admissionOf). */
class CrawlTables {
  crawl: StoredCrawl;
  pages = new Map<string, CrawlPageRow & { state: 'new' | 'queued' | 'read'; seq: number }>();
  private seq = 0;

  constructor(maxPages: number, maxDepth: number) {
    this.crawl = {
      id: CRAWL_ID,
      clientId: 'client',
      url: url('/'),
      request: { url: url('/'), plan: { max_concurrency: 4, monthly_credits: null } } as StoredCrawl['request'],
      state: 'running',
      robotsStatus: 'none',
      maxPages,
      maxDepth,
      pageCredits: 1,
      maxCredits: null,
      admitted: 0,
      skipped: {},
      zeroPagesReason: null,
      plan: null,
      llmsTxt: null,
      createdAt: new Date(),
      completedAt: null,
    };
    this.admit(CRAWL_ID, [candidateOf(CRAWL_ID, normalUrl(url('/'))!, 0)], {});
  }

  get store(): CrawlStore {
    const live = () => ['running', 'paused', 'cancelling'].includes(this.crawl.state);
    return {
      claimNext: async (_owner: string, _now: Date, _lease: number, skip: string[]) =>
        live() && !skip.includes(CRAWL_ID) ? { ...this.crawl } : null,
      releaseAllLeases: async () => undefined,
      extendLease: async () => undefined,
      release: async () => undefined,
      admit: async (id: string, candidates: PageCandidate[], refused: Partial<SkipCounts>) => this.admit(id, candidates, refused),
      pagesIn: async (_id: string, state: 'new' | 'queued', limit: number) =>
        [...this.pages.values()]
          .filter((p) => p.state === state)
          .sort((x, y) => x.seq - y.seq)
          .slice(0, limit)
          .map(({ key, url, depth, jobId }) => ({ key, url, depth, jobId })),
      markPages: async (_id: string, keys: string[], state: 'queued' | 'read') => keys.forEach((k) => (this.pages.get(k)!.state = state)),
      countWaiting: async () => [...this.pages.values()].filter((p) => p.state !== 'read').length,
      setState: async (_id: string, state: StoredCrawl['state']) => void (this.crawl.state = state),
      standAlone: async () => undefined,
    } as unknown as CrawlStore;
  }

  private admit(_id: string, candidates: PageCandidate[], refused: Partial<SkipCounts>): number {
    for (const c of candidates) {
      const page = this.pages.get(c.key);
      if (page && page.depth > c.depth && page.state !== 'read') page.depth = c.depth;
    }
    const { taken, skipped } = admissionOf(candidates, this.crawl, new Set(this.pages.keys()), refused);
    for (const c of taken) this.pages.set(c.key, { ...c, state: 'new', seq: this.seq++ });
    this.crawl.admitted += taken.length;
    this.crawl.skipped = skipped;
    return taken.length;
  }
}

/** The job engine's side: a run whose appended jobs end at the next look, which can be made unreachable. */
class JobEngine {
  /** Job id → its page's URL: a page appended under a second id would be fetched twice, and shows here twice. */
  jobs = new Map<string, { url: string }>();
  seals = 0;
  completed = false;
  unreachableFor = 0;

  get bus(): MessageBus {
    return {
      request: async (subject: string, payload: Record<string, unknown>) => {
        if (this.unreachableFor > 0) {
          this.unreachableFor -= 1;
          throw new Error(`no reply on ${subject} within 10000 ms`);
        }
        return this.answer(subject, payload);
      },
      unpack: async (value: unknown) => value,
    } as unknown as MessageBus;
  }

  private answer(subject: string, payload: Record<string, unknown>): unknown {
    const figures = () => ({
      run_id: CRAWL_ID,
      state: this.completed ? 'completed' : 'running',
      status: this.completed ? 'completed' : 'in_progress',
      success: this.jobs.size,
    });
    switch (subject) {
      case SUBJECTS.crawlRuns.open:
        return figures();
      case SUBJECTS.crawlRuns.append:
        for (const job of payload.jobs as Array<{ job_id: string; url: string }>)
          if (!this.jobs.has(job.job_id)) this.jobs.set(job.job_id, { url: job.url });
        return { added: 0, state: 'running' };
      case SUBJECTS.crawlRuns.outcomes:
        return {
          finished: (payload.job_ids as string[]).map((id) => ({ job_id: id, status: 'completed', success: true, duplicate_of: null })),
        };
      case SUBJECTS.jobs.data: {
        const job = this.jobs.get(payload.job_id as string)!;
        const path = new URL(job.url).pathname;
        return { found: true, result: { statusCode: 200, metadata: { links: (SITE[path] ?? []).map(url) } } };
      }
      case SUBJECTS.crawlRuns.seal:
        this.seals += 1;
        this.completed = true;
        return figures();
      case SUBJECTS.crawlRuns.get:
        return figures();
      default:
        throw new Error(`unexpected subject ${subject}`);
    }
  }
}

const notFound: FetchedResponse = {
  url: url('/robots.txt'),
  statusCode: 404,
  statusMessage: 'Not Found',
  headers: {},
  contentType: 'text/plain',
  body: Buffer.alloc(0),
  text: '',
  redirects: [],
  timings: { proxy_ms: 0, navigation_ms: 0, total_ms: 0 },
};

/** Wakes the worker until the crawl is no longer running (or 200 turns passed). */
async function crawl(tables: CrawlTables, bus: MessageBus): Promise<void> {
  const rulebook = new CrawlRulebook({ fetch: async () => notFound } as unknown as SimpleFetcher);
  const worker = new CrawlWorker(tables.store, rulebook, {} as CrawlPlanner, bus, systemClock, loadPlatformConfig({}));
  await worker.onApplicationBootstrap();
  try {
    for (let i = 0; i < 200 && tables.crawl.state === 'running'; i += 1) {
      worker.wake();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await worker.onApplicationShutdown();
  }
}

const paths = (engine: JobEngine) => [...engine.jobs.values()].map((j) => new URL(j.url).pathname).sort();

describe('a crawl driven by its worker (job engine and tables in memory)', () => {
  it.each([
    [0, ['/']],
    [1, ['/', '/a', '/b']],
    [2, ['/', '/a', '/b', '/c', '/d']],
  ])('max_depth %i scrapes the pages that many links from the start', async (maxDepth, expected) => {
    const tables = new CrawlTables(100, maxDepth);
    const engine = new JobEngine();
    await crawl(tables, engine.bus);
    expect(tables.crawl.state).toBe('completed');
    expect(paths(engine)).toEqual(expected);
    expect(tables.crawl.skipped.scope).toBe(1);
  });

  it('stops admitting at max_pages and counts the rest over_limit', async () => {
    const tables = new CrawlTables(3, 5);
    const engine = new JobEngine();
    await crawl(tables, engine.bus);
    expect(tables.crawl.state).toBe('completed');
    expect(engine.jobs.size).toBe(3);
    expect(tables.crawl.admitted).toBe(3);
    expect(tables.crawl.skipped.over_limit).toBeGreaterThan(0);
  });

  it('goes on after the orchestrator was unreachable mid-crawl: every page once, none lost, sealed once', async () => {
    const tables = new CrawlTables(100, 5);
    const engine = new JobEngine();
    // Lost as the start page's links are read: that request and the next three (outcomes, data,
    // append of the following turns) fail as a request to a dead replier does, until a new
    // orchestrator answers.
    const original = engine.bus.request.bind(engine.bus);
    let lost = false;
    const bus = {
      request: async (subject: string, payload: Record<string, unknown>) => {
        if (subject === SUBJECTS.jobs.data && !lost) [lost, engine.unreachableFor] = [true, 4];
        return original(subject as never, payload as never);
      },
      unpack: async (value: unknown) => value,
    } as unknown as MessageBus;
    await crawl(tables, bus);
    expect(lost).toBe(true);
    expect(engine.unreachableFor).toBe(0);
    expect(tables.crawl.state).toBe('completed');
    expect(paths(engine)).toEqual(['/', '/a', '/b', '/c', '/d', '/e']);
    expect([...tables.pages.values()].every((page) => page.state === 'read')).toBe(true);
    expect(engine.seals).toBe(1);
  });
});
