import { BrowserLauncher, type BrowserKind } from '../../apps/scrape-engine/src/browser/browser-launcher';
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
