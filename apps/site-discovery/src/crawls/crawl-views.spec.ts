import type { CrawlReference } from '@lib/contracts';
import { RemoteAppError } from '@lib/errors';
import type { MessageBus } from '@lib/messaging';
import type { CrawlStore, StoredCrawl } from '../persistence/crawl.store';
import { CrawlViews } from './crawl-views';

const CRAWL: StoredCrawl = {
  id: '5b0c1d8e-4f2a-4b7c-9d3e-1a2b3c4d5e6f',
  clientId: 'client-1',
  url: 'https://example.com/',
  request: {} as StoredCrawl['request'],
  state: 'running',
  robotsStatus: 'none',
  maxPages: 10,
  maxDepth: 1,
  pageCredits: 1,
  maxCredits: null,
  admitted: 1,
  skipped: {},
  zeroPagesReason: null,
  plan: null,
  llmsTxt: null,
  createdAt: new Date('2026-12-04T00:00:00Z'),
  completedAt: null,
};

function viewsAnswering(code: string): CrawlViews {
  const store = { find: async () => CRAWL } as unknown as CrawlStore;
  const bus = {
    request: async () => {
      throw new RemoteAppError({ code, message: 'not found' });
    },
  } as unknown as MessageBus;
  return new CrawlViews(store, bus);
}

const reference: CrawlReference = { client_id: CRAWL.clientId, crawl_id: CRAWL.id };

// A crawl stored but whose run is not opened yet (a crash between the two; the worker opens it)
// shows zeros, whether this release's orchestrator says so or the previous one's during a rolling
// upgrade (decision 0036); any other error is the caller's.
describe('CrawlViews when the crawl has no run yet', () => {
  it.each(['run.not_found', 'batch.batch_not_found'])('shows zeros when the orchestrator answers %s', async (code) => {
    const view = await viewsAnswering(code).get(reference);
    expect(view).toMatchObject({ crawl_id: CRAWL.id, discovered: 1, queued: 1, completed: 0, credits_charged: 0 });
  });

  it.each(['batch.run_not_found', 'transport.timeout'])('passes %s on', async (code) => {
    await expect(viewsAnswering(code).get(reference)).rejects.toMatchObject({ code });
  });
});
