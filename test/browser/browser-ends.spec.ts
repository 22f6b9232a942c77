import fc from 'fast-check';
import type { Page } from 'rebrowser-puppeteer-core';
import { type BrowserKind, BrowserLauncher } from '../../apps/scrape-engine/src/browser/browser-launcher';
import { type BrowserExit, type BrowserLease, BrowserPool } from '../../apps/scrape-engine/src/browser/browser-pool';
import { locateChromium } from '../../apps/scrape-engine/src/browser/chromium-locator';
import { chromiumProcessesBelow } from '../support/chromium-processes';
import { eventually } from './support/browser-engine';

/**
 * Every browser the pool starts is told to its observer exactly once, when it ends, as what its
 * end was — judged by what happened, never by timing. Real Chromium is SIGKILLed at a random
 * moment of its life:
 * - starting: while the launch is under way (the process exists, the pool has no browser yet);
 * - serving: a page open on it;
 * - retiring: past its page budget, still finishing its last page;
 * - idle: no page open;
 * - closing: while the pool is closing it at shutdown (a clean close races the kill).
 * Each round has its own pool; after `close()` the told ends are checked against the launches.
 */

/** The real launcher, counting the processes it was asked to start. */
class CountingLauncher extends BrowserLauncher {
  attempts = 0;

  override launch(kind: BrowserKind) {
    this.attempts += 1;
    return super.launch(kind);
  }
}

const MOMENTS = ['starting', 'serving', 'retiring', 'idle', 'closing'] as const;
type Moment = (typeof MOMENTS)[number];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A page that stays busy until its browser goes: the lease stays in flight. */
async function busyPage(lease: BrowserLease): Promise<Page> {
  const context = await lease.browser.createBrowserContext();
  const page = await context.newPage();
  void page.evaluate(() => new Promise(() => undefined)).catch(() => undefined);
  return page;
}

/** The first Chromium main process below this one that is not in `known`. */
async function newMainProcess(known: Set<number>, ms = 30_000): Promise<number> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const main = chromiumProcessesBelow().find((p) => p.main && !known.has(p.pid));
    if (main) return main.pid;
    await sleep(5);
  }
  throw new Error('no new Chromium process appeared');
}

interface Round {
  /** The pid the test killed. */
  killed: number;
  /** The killed process's own exit signal, where the test could see it (the closing moment). */
  signalOf?: () => string | null;
}

async function play(pool: BrowserPool, moment: Moment, kind: BrowserKind, delayMs: number): Promise<Round> {
  const pidOf = (lease: BrowserLease) => lease.browser.process()!.pid!;
  switch (moment) {
    case 'starting': {
      const known = new Set(chromiumProcessesBelow().map((p) => p.pid));
      const leasing = pool.lease(kind);
      leasing.catch(() => undefined);
      const pid = await newMainProcess(known);
      await sleep(delayMs % 150);
      process.kill(pid, 'SIGKILL');
      // The launch fails (killed before it answered) or hands out a browser already dead.
      const lease = await leasing.catch(() => null);
      await lease?.release();
      return { killed: pid };
    }
    case 'serving': {
      const lease = await pool.lease(kind);
      await busyPage(lease);
      expect(pool.stats().browsers.find((b) => b.pid === pidOf(lease))).toMatchObject({ active: 1, retiring: false });
      await sleep(delayMs);
      process.kill(pidOf(lease), 'SIGKILL');
      await eventually(() => !pool.stats().browsers.some((b) => b.pid === pidOf(lease)));
      await lease.release({ broken: false });
      return { killed: pidOf(lease) };
    }
    case 'retiring': {
      // Page budget 2: the second lease retires the browser; the first ends, the second stays busy.
      const first = await pool.lease(kind);
      const second = await pool.lease(kind);
      expect(second.browser).toBe(first.browser);
      await first.release();
      await busyPage(second);
      expect(pool.stats().browsers.find((b) => b.pid === pidOf(second))).toMatchObject({ active: 1, retiring: true });
      await sleep(delayMs);
      process.kill(pidOf(second), 'SIGKILL');
      await eventually(() => !pool.stats().browsers.some((b) => b.pid === pidOf(second)));
      // Its last page ends after the kill: the pool would close it for its budget now, too late.
      await second.release();
      return { killed: pidOf(second) };
    }
    case 'idle': {
      const lease = await pool.lease(kind);
      const pid = pidOf(lease);
      await lease.release();
      await sleep(delayMs);
      expect(pool.stats().browsers.find((b) => b.pid === pid)).toMatchObject({ active: 0, retiring: false });
      process.kill(pid, 'SIGKILL');
      return { killed: pid };
    }
    case 'closing': {
      const lease = await pool.lease(kind);
      const child = lease.browser.process()!;
      await lease.release();
      const closing = pool.close();
      await sleep(delayMs % 60);
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
      await closing;
      return { killed: child.pid!, signalOf: () => child.signalCode };
    }
  }
}

describe('Browser ends with real Chromium', () => {
  it('tells each browser end exactly once, as what it was, whenever a kill lands (starting, serving, retiring, idle, closing)', async () => {
    const binaries = locateChromium({ chromePath: process.env.CHROME_PATH ?? null, headlessShellPath: null });
    const before = new Set(chromiumProcessesBelow().map((p) => p.pid));
    const round = fc.record({
      moment: fc.constantFrom(...MOMENTS),
      kind: fc.constantFrom<BrowserKind>('light', 'heavy'),
      delayMs: fc.integer({ min: 0, max: 400 }),
    });
    await fc.assert(
      fc.asyncProperty(round, async ({ moment, kind, delayMs }) => {
        const launcher = new CountingLauncher(binaries);
        const told: BrowserExit[] = [];
        const pool = new BrowserPool(
          launcher,
          { concurrency: 3, queueTimeoutMs: 30_000, recycleAfter: 2 },
          { exited: (e) => void told.push(e) },
        );
        let played: Round;
        try {
          played = await play(pool, moment, kind, delayMs);
        } finally {
          await pool.close();
        }
        const where = `${moment} ${kind} +${delayMs} ms: ${JSON.stringify(told)}`;
        // Every process started was told once: an end after serving carries its pid, once; an end
        // while starting (the launch failed) carries none.
        expect({ where, told: told.length }).toEqual({ where, told: launcher.attempts });
        const withPid = told.filter((e) => e.pid !== null).map((e) => e.pid);
        expect(new Set(withPid).size).toBe(withPid.length);
        const ofKilled = told.filter((e) => e.pid === played.killed || (e.whileStarting && moment === 'starting'));
        expect({ where, ends: ofKilled.length }).toEqual({ where, ends: 1 });
        const [end] = ofKilled as [BrowserExit];
        expect(end.kind).toBe(kind);
        if (moment === 'closing') {
          // The pool was closing it: a clean exit is the shutdown, a SIGKILL that beat it is a crash.
          expect({ where, cause: end.cause }).toEqual({ where, cause: played.signalOf!() === 'SIGKILL' ? 'crash' : 'shutdown' });
        } else {
          expect({ where, cause: end.cause }).toEqual({ where, cause: 'crash' });
          const pagesInFlight = { starting: end.pagesInFlight, serving: 1, retiring: 1, idle: 0 }[moment];
          expect({ where, pagesInFlight: end.pagesInFlight }).toEqual({ where, pagesInFlight });
        }
        // Nothing else died: every other end is a close of the pool's own.
        expect(told.filter((e) => e !== end).every((e) => e.cause === 'shutdown' || e.cause === 'page_budget')).toBe(true);
        // Nothing is left running.
        expect(await eventually(() => chromiumProcessesBelow().every((p) => before.has(p.pid)), 15_000)).toBe(true);
      }),
      {
        numRuns: 12,
        // Every moment at least once, whatever the random runs draw.
        examples: MOMENTS.map(
          (moment, i) =>
            [{ moment, kind: i % 2 === 0 ? 'light' : 'heavy', delayMs: 50 * i }] as [
              { moment: Moment; kind: BrowserKind; delayMs: number },
            ],
        ),
        endOnFailure: true,
      },
    );
  }, 240_000);
});
