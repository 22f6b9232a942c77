import { loadPlatformConfig } from '@lib/config';
import type { MessageBus } from '@lib/messaging';
import { systemClock } from '@lib/runtime';
import type { CrawlStore } from '../persistence/crawl.store';
import type { CrawlPlanner } from './crawl-planner';
import type { CrawlRulebook } from './crawl-rulebook';
import { CrawlWorker } from './crawl-worker';

/**
 * An idle platform's pollers must leave the database idle: each look for a crawl is a transaction,
 * and ten a second kept the embedded database's thread too busy to ever give its memory back
 * (decision 0030). With no live crawl the worker looks once a second; woken, it looks at once.
 */
describe('CrawlWorker polling', () => {
  let looks = 0;
  const store = {
    claimNext: async () => {
      looks += 1;
      return null;
    },
    releaseAllLeases: async () => undefined,
  } as unknown as CrawlStore;
  let worker: CrawlWorker;

  beforeEach(() => {
    jest.useFakeTimers();
    looks = 0;
    worker = new CrawlWorker(store, {} as CrawlRulebook, {} as CrawlPlanner, {} as MessageBus, systemClock, loadPlatformConfig({}));
  });

  afterEach(async () => {
    await worker.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('looks for crawls once a second while there is none, and at once when woken', async () => {
    await worker.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(3_000);
    // 30 polls of 100 ms: the first looks, then every tenth.
    expect(looks).toBeGreaterThanOrEqual(3);
    expect(looks).toBeLessThanOrEqual(4);
    const before = looks;
    worker.wake();
    await jest.advanceTimersByTimeAsync(0);
    expect(looks).toBe(before + 1);
  });
});
