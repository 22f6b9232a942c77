import { EventEmitter } from 'node:events';
import type { Browser } from 'rebrowser-puppeteer-core';
import type { BrowserEnd, BrowserKind, BrowserLauncher, LaunchedBrowser } from './browser-launcher';
import { type BrowserExit, BrowserPool } from './browser-pool';

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
      return {
        kind,
        browser: browser as unknown as Browser,
        pid: null,
        version: '1.0',
        clientHints: { brands: [], fullVersionList: [], platformVersion: '' },
        ended,
      };
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

/**
 * Who sent the kill decides how a browser's end is told. puppeteer's `browser.close()` SIGKILLs the
 * process group itself when Chromium closes its pipe before answering `Browser.close` (a loaded CI
 * machine: a browser retired for its page budget was told as a crash). These fakes behave as
 * puppeteer and Chromium do there: `close()` ends in a SIGKILL the pool did not send, while
 * `Browser.close` asked over a session ends in a clean exit — or hangs, when the test says so.
 */
describe('BrowserPool tells a close of its own from a crash', () => {
  class FakeProcess extends EventEmitter {
    exitCode: number | null = null;
    signalCode: NodeJS.Signals | null = null;
    exit(code: number | null, signal: NodeJS.Signals | null) {
      if (this.exitCode !== null || this.signalCode !== null) return;
      this.exitCode = code;
      this.signalCode = signal;
      this.emit('exit', code, signal);
    }
    kill(signal: NodeJS.Signals) {
      setImmediate(() => this.exit(null, signal));
      return true;
    }
  }
  class ChromiumLike {
    connected = true;
    readonly child = new FakeProcess();
    closeAnswers = true;
    constructor() {
      this.child.once('exit', () => (this.connected = false));
    }
    process() {
      return this.child;
    }
    /** puppeteer's close under load: the reply never came, so it killed the process group. */
    async close() {
      this.child.kill('SIGKILL');
    }
    target() {
      return {
        createCDPSession: async () => ({
          send: async (method: string) => {
            expect(method).toBe('Browser.close');
            if (this.closeAnswers) setImmediate(() => this.child.exit(0, null));
            else await new Promise(() => undefined);
          },
        }),
      };
    }
  }
  let launched: ChromiumLike[];
  let told: BrowserExit[];
  const launcher = {
    async launch(kind: BrowserKind): Promise<LaunchedBrowser> {
      const browser = new ChromiumLike();
      launched.push(browser);
      const ended = new Promise<BrowserEnd>((resolve) =>
        browser.child.once('exit', (code: number | null, signal: string | null) => resolve({ code, signal })),
      );
      return {
        kind,
        browser: browser as unknown as Browser,
        pid: launched.length,
        version: '1.0',
        clientHints: { brands: [], fullVersionList: [], platformVersion: '' },
        ended,
      };
    },
  } as unknown as BrowserLauncher;
  const poolOf = (recycleAfter: number) =>
    new BrowserPool(launcher, { concurrency: 2, queueTimeoutMs: 1000, recycleAfter }, { exited: (exit) => told.push(exit) });

  beforeEach(() => {
    launched = [];
    told = [];
  });

  it('tells a browser retired for its page budget as page_budget, not as a crash', async () => {
    const pool = poolOf(2);
    for (let i = 0; i < 4; i++) await (await pool.lease('light')).release();
    expect(launched).toHaveLength(2);
    expect(told.map((t) => t.cause)).toEqual(['page_budget', 'page_budget']);
    expect(told.every((t) => t.detail === 'exit code 0')).toBe(true);
  });

  it('tells a browser shut down with the pool as shutdown', async () => {
    const pool = poolOf(100);
    await (await pool.lease('heavy')).release();
    await pool.close();
    expect(told.map((t) => t.cause)).toEqual(['shutdown']);
  });

  it('still tells a kill it did not send during its own close as a crash', async () => {
    const pool = poolOf(1);
    const lease = await pool.lease('light');
    launched[0]!.closeAnswers = false;
    const releasing = lease.release();
    await new Promise((resolve) => setImmediate(resolve));
    launched[0]!.child.kill('SIGKILL'); // someone else's kill (the OOM killer, a drill)
    await releasing;
    expect(told).toEqual([expect.objectContaining({ cause: 'crash', detail: 'signal SIGKILL', pagesServed: 1 })]);
  });
});
