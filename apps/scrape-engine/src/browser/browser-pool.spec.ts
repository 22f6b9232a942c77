import type { Browser } from 'rebrowser-puppeteer-core';
import type { BrowserEnd, BrowserKind, BrowserLauncher, LaunchedBrowser } from './browser-launcher';
import { BrowserPool } from './browser-pool';

/**
 * Which browser a lease gets, with launches the test controls: a browser's end is recorded only
 * when its process's exit status is known (up to 1 s after its connection closed), and a request
 * arriving in between must not be handed the dead connection (CI: the scrape right after a
 * browser was killed failed with browser_error).
 */
describe('BrowserPool leases', () => {
  class FakeBrowser {
    connected = true;
    process() {
      return null;
    }
    async close() {
      this.connected = false;
    }
  }
  const launched: FakeBrowser[] = [];
  const launcher = {
    async launch(kind: BrowserKind): Promise<LaunchedBrowser> {
      const browser = new FakeBrowser();
      launched.push(browser);
      // Its end is never recorded here: only the connection says it is gone.
      const ended = new Promise<BrowserEnd>(() => undefined);
      return { kind, browser: browser as unknown as Browser, pid: null, version: '1.0', ended };
    },
  } as unknown as BrowserLauncher;

  beforeEach(() => {
    launched.length = 0;
  });

  it('hands out the live browser again, and a new one once the connection of the last has closed', async () => {
    const pool = new BrowserPool(launcher, { concurrency: 2, queueTimeoutMs: 1000, recycleAfter: 100 });
    const first = await pool.lease('heavy');
    await first.release();
    const again = await pool.lease('heavy');
    expect(again.browser).toBe(first.browser);
    await again.release();

    launched[0]!.connected = false;
    const replaced = await pool.lease('heavy');
    expect(replaced.browser).not.toBe(first.browser);
    expect(launched).toHaveLength(2);
    expect((replaced.browser as unknown as FakeBrowser).connected).toBe(true);
    await replaced.release();
    // The other kind is not touched by it.
    const light = await pool.lease('light');
    expect(launched).toHaveLength(3);
    await light.release();
  });
});
