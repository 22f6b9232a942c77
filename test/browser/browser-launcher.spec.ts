import fs from 'node:fs';
import { BrowserLauncher, WINDOW_UI_FEATURES_OFF, type BrowserKind } from '../../apps/scrape-engine/src/browser/browser-launcher';
import { locateChromium } from '../../apps/scrape-engine/src/browser/chromium-locator';

/**
 * A browser that crashes (here: SIGKILL) must not take the scrape-engine with it. Its pipes can
 * report `read ECONNRESET` after puppeteer has dropped its own listeners on them; an `error` event
 * nobody listens to is an uncaught exception, which ends the process. Emitting one on every pipe of
 * a dead browser is what the platform must survive.
 */
describe('BrowserLauncher: a browser’s pipes, live or dead', () => {
  const launcher = new BrowserLauncher(locateChromium({ chromePath: process.env.CHROME_PATH ?? null, headlessShellPath: null }));

  // While the browser lives, @puppeteer/browsers reads its stdout and stderr through readline,
  // which re-emits a pipe's error on an interface nobody listens to: the case a crash under load
  // hits when the error comes before the pipe has ended.
  it.each<BrowserKind>(['light', 'heavy'])(
    '%s: an error on any pipe of a live browser is heard, not thrown',
    async (kind) => {
      const { browser } = await launcher.launch(kind);
      try {
        const streams = browser.process()!.stdio.filter((stream) => stream !== null && stream !== undefined);
        expect(streams.length).toBeGreaterThanOrEqual(2); // the CDP pipe pair; stdout and stderr only when puppeteer reads them
        for (const stream of streams) {
          const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
          expect(() => stream.emit('error', reset)).not.toThrow();
        }
      } finally {
        await browser.close().catch(() => undefined);
      }
    },
    60_000,
  );

  it.each<BrowserKind>(['light', 'heavy'])(
    '%s: an error on any pipe after a crash is heard, not thrown',
    async (kind) => {
      const { browser } = await launcher.launch(kind);
      const child = browser.process()!;
      const gone = new Promise((resolve) => browser.once('disconnected', resolve));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await Promise.all([gone, exited]);
      // Let puppeteer finish tearing its connection down (it removes its listeners as it goes).
      await new Promise((resolve) => setTimeout(resolve, 200));

      const streams = child.stdio.filter((stream) => stream !== null && stream !== undefined);
      expect(streams.length).toBeGreaterThanOrEqual(2); // the CDP pipe pair; stdout and stderr only when puppeteer reads them
      for (const stream of streams) {
        const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
        expect(() => stream.emit('error', reset)).not.toThrow();
      }
    },
    60_000,
  );
});

/**
 * Every browser context's first page is a new window, and the full Chromium builds browser-UI pages
 * for each window (since ~150: the omnibox popup, two WebUI renderers, ~1.3 s of CPU per window).
 * A scraper never shows them, so the launcher turns them off (WINDOW_UI_FEATURES_OFF); this fails
 * when a Chromium upgrade renames those features or brings another per-window UI page.
 */
describe('BrowserLauncher: no browser UI per window', () => {
  const launcher = new BrowserLauncher(locateChromium({ chromePath: process.env.CHROME_PATH ?? null, headlessShellPath: null }));

  it.each<BrowserKind>(['light', 'heavy'])(
    '%s: a new context and page bring no browser_ui target',
    async (kind) => {
      const { browser } = await launcher.launch(kind);
      try {
        const context = await browser.createBrowserContext();
        await context.newPage();
        const session = await browser.target().createCDPSession();
        const seen = new Set<string>();
        // The popups are created with the window; look for a while after it, not once.
        for (let look = 0; look < 10; look += 1) {
          const { targetInfos } = await session.send('Target.getTargets', { filter: [{}] });
          for (const target of targetInfos) if (target.type === 'browser_ui') seen.add(target.url);
          await new Promise((resolve) => setTimeout(resolve, 150));
        }
        expect([...seen]).toEqual([]);
      } finally {
        await browser.close().catch(() => undefined);
      }
    },
    60_000,
  );

  // Puppeteer takes `--disable-features` out of the argument array it is handed: a launcher that
  // reused one array lost the features after its first launch.
  it('every launch, not only the first, starts Chromium with the features off', async () => {
    for (const kind of ['light', 'heavy', 'light', 'heavy'] as const) {
      const { browser, pid } = await launcher.launch(kind);
      try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const off = argv
          .filter((arg) => arg.startsWith('--disable-features='))
          .flatMap((arg) => arg.slice('--disable-features='.length).split(','));
        expect({ kind, missing: WINDOW_UI_FEATURES_OFF.filter((feature) => !off.includes(feature)) }).toEqual({ kind, missing: [] });
      } finally {
        await browser.close().catch(() => undefined);
      }
    }
  }, 60_000);
});
