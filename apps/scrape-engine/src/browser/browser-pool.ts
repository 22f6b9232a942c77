import { Logger } from '@nestjs/common';
import type { Browser } from 'puppeteer-core';
import { type BrowserKind, type BrowserLauncher, type LaunchedBrowser } from './browser-launcher';

export interface BrowserPoolSettings {
  /** Pages rendered at once by this worker, both kinds together. */
  concurrency: number;
  queueTimeoutMs: number;
  /** Contexts a browser serves before it is replaced. */
  recycleAfter: number;
  /**
   * A browser with no page open for this long is closed, and the next request starts one again
   * (a few hundred ms). Idle Chromium holds 150–400 MB per kind; 0 keeps browsers open.
   */
  idleCloseMs?: number;
}

/** What the pool tells the rest of the process about its browsers (ops events, metrics). */
export interface BrowserPoolObserver {
  /** A browser died under the pool (not a close of ours). */
  crashed(kind: BrowserKind, pagesInFlight: number, reason: string): void;
  /** The pool retired a browser: `page_budget` (recycleAfter), `hung` (a lease said so), `idle`. */
  recycled(kind: BrowserKind, reason: 'page_budget' | 'hung' | 'idle', pagesServed: number): void;
}

const UNOBSERVED: BrowserPoolObserver = { crashed: () => undefined, recycled: () => undefined };

/** No page slot became free within the queue timeout. */
export class BrowserBusyError extends Error {}

interface PooledBrowser extends LaunchedBrowser {
  served: number;
  active: number;
  retiring: boolean;
  dead: boolean;
  idleTimer: NodeJS.Timeout | null;
}

/** A page slot on a live browser of the asked kind; release it exactly once. */
export interface BrowserLease {
  browser: Browser;
  kind: BrowserKind;
  version: string;
  queueWaitMs: number;
  /** Time spent starting a browser for this lease (0 when a warm one was there). */
  launchMs: number;
  /** `broken`: the browser hung or misbehaved; it is killed and replaced. */
  release(outcome?: { broken: boolean }): Promise<void>;
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Browsers of two kinds, started on first use and closed after `idleCloseMs` without a page,
 * behind a fair (FIFO) queue of page slots. One browser per kind serves
 * many isolated contexts at once; it is replaced after `recycleAfter` contexts, when it crashes
 * (its leases fail, later ones get a new browser) and when a lease reports it hung. A retiring
 * browser finishes its pages before it is closed, so a replacement never cuts a request short.
 */
export class BrowserPool {
  private readonly logger = new Logger('BrowserPool');
  private freeSlots: number;
  private readonly waiters: Waiter[] = [];
  private readonly current = new Map<BrowserKind, Promise<PooledBrowser>>();
  private readonly all = new Set<PooledBrowser>();
  private closed = false;
  private launches = 0;

  constructor(
    private readonly launcher: BrowserLauncher,
    private readonly settings: BrowserPoolSettings,
    private readonly observer: BrowserPoolObserver = UNOBSERVED,
  ) {
    this.freeSlots = settings.concurrency;
  }

  /** Start browsers before the first request needs them; failures are logged, not thrown. */
  async warm(kinds: BrowserKind[]): Promise<void> {
    await Promise.all(
      kinds.map((kind) =>
        this.browserFor(kind).then(
          () => undefined,
          (error: unknown) =>
            this.logger.warn(`could not warm the ${kind} browser: ${error instanceof Error ? error.message : String(error)}`),
        ),
      ),
    );
  }

  async lease(kind: BrowserKind): Promise<BrowserLease> {
    if (this.closed) throw new BrowserBusyError('The browser pool is shutting down.');
    const queued = performance.now();
    await this.takeSlot();
    const queueWaitMs = performance.now() - queued;
    let pooled: PooledBrowser;
    // Waiting for a browser is launch time, whether this request started the launch or another did.
    const launchStarted = performance.now();
    try {
      const first = this.browserFor(kind);
      pooled = await first;
      if (pooled.dead) {
        // Died before its 'disconnected' event was handled: forget it (only it) and start another.
        if (this.current.get(kind) === first) this.current.delete(kind);
        pooled = await this.browserFor(kind);
      }
    } catch (error) {
      this.giveSlot();
      throw error;
    }
    const waited = performance.now() - launchStarted;
    const launchMs = waited < 1 ? 0 : waited;
    this.stopIdleTimer(pooled);
    pooled.active += 1;
    pooled.served += 1;
    if (pooled.served >= this.settings.recycleAfter) this.retire(pooled, 'page_budget');
    let released = false;
    return {
      browser: pooled.browser,
      kind,
      version: pooled.version,
      queueWaitMs,
      launchMs,
      release: async (outcome) => {
        if (released) return;
        released = true;
        pooled.active -= 1;
        this.giveSlot();
        if (outcome?.broken) {
          this.logger.warn(`${kind} browser ${pooled.pid ?? '?'} hung; replacing it`);
          this.retire(pooled, 'hung');
          await this.destroy(pooled, true);
        } else if (pooled.retiring && pooled.active === 0) {
          await this.destroy(pooled, false);
        } else if (pooled.active === 0) {
          this.startIdleTimer(pooled);
        }
      },
    };
  }

  /** Closes `pooled` once it has had no page open for idleCloseMs (started when its last page ends). */
  private startIdleTimer(pooled: PooledBrowser): void {
    const idleMs = this.settings.idleCloseMs ?? 0;
    if (idleMs <= 0 || this.closed) return;
    this.stopIdleTimer(pooled);
    pooled.idleTimer = setTimeout(() => {
      pooled.idleTimer = null;
      if (pooled.active > 0 || pooled.dead || pooled.retiring || this.closed) return;
      this.logger.log(`${pooled.kind} browser ${pooled.pid ?? '?'} idle for ${idleMs} ms; closing it (the next request starts one)`);
      this.retire(pooled, 'idle');
      void this.destroy(pooled, false);
    }, idleMs);
    pooled.idleTimer.unref();
  }

  private stopIdleTimer(pooled: PooledBrowser): void {
    if (pooled.idleTimer) clearTimeout(pooled.idleTimer);
    pooled.idleTimer = null;
  }

  /** Live browsers and slot use, for health and tests. */
  stats(): {
    browsers: Array<{ kind: BrowserKind; pid: number | null; active: number; served: number }>;
    freeSlots: number;
    queued: number;
    launches: number;
  } {
    return {
      launches: this.launches,
      browsers: [...this.all].filter((b) => !b.dead).map((b) => ({ kind: b.kind, pid: b.pid, active: b.active, served: b.served })),
      freeSlots: this.freeSlots,
      queued: this.waiters.length,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) clearTimeout(waiter.timer);
    await Promise.all([...this.all].map((b) => this.destroy(b, false)));
    this.current.clear();
  }

  private browserFor(kind: BrowserKind): Promise<PooledBrowser> {
    const existing = this.current.get(kind);
    if (existing) return existing;
    const launching = this.launcher.launch(kind).then((launched) => {
      this.launches += 1;
      const pooled: PooledBrowser = { ...launched, served: 0, active: 0, retiring: false, dead: false, idleTimer: null };
      this.all.add(pooled);
      // A browser started ahead of use (warm) closes too if nothing comes; a lease stops the timer.
      this.startIdleTimer(pooled);
      launched.browser.once('disconnected', () => {
        pooled.dead = true;
        this.stopIdleTimer(pooled);
        this.all.delete(pooled);
        if (this.current.get(kind) === launching) this.current.delete(kind);
        if (!this.closed && !pooled.retiring) {
          this.logger.warn(`${kind} browser ${pooled.pid ?? '?'} disconnected (crashed or killed); the next request starts a new one`);
          const exit = pooled.browser.process();
          this.observer.crashed(kind, pooled.active, exit?.signalCode ? `signal ${exit.signalCode}` : 'disconnected');
        }
      });
      if (this.closed) {
        void this.destroy(pooled, false);
        throw new BrowserBusyError('The browser pool is shutting down.');
      }
      return pooled;
    });
    this.current.set(kind, launching);
    // A failed launch must not stick: the next request tries again.
    launching.catch(() => {
      if (this.current.get(kind) === launching) this.current.delete(kind);
    });
    return launching;
  }

  private retire(pooled: PooledBrowser, reason: 'page_budget' | 'hung' | 'idle'): void {
    if (!pooled.retiring && !pooled.dead) this.observer.recycled(pooled.kind, reason, pooled.served);
    pooled.retiring = true;
    const current = this.current.get(pooled.kind);
    if (current)
      void current.then(
        (b) => b === pooled && this.current.get(pooled.kind) === current && this.current.delete(pooled.kind),
        () => undefined,
      );
  }

  private async destroy(pooled: PooledBrowser, kill: boolean): Promise<void> {
    pooled.retiring = true;
    this.stopIdleTimer(pooled);
    this.all.delete(pooled);
    const process = pooled.browser.process();
    if (!kill && pooled.browser.connected) {
      const closed = pooled.browser.close().then(
        () => true,
        () => false,
      );
      const inTime = await Promise.race([closed, new Promise<boolean>((resolve) => setTimeout(resolve, 5000, false).unref())]);
      if (inTime) return;
    }
    if (process && process.exitCode === null && process.signalCode === null) {
      process.kill('SIGKILL');
      await new Promise<void>((resolve) => {
        if (process.exitCode !== null || process.signalCode !== null) resolve();
        else process.once('exit', () => resolve());
      });
    }
  }

  private takeSlot(): Promise<void> {
    if (this.freeSlots > 0) {
      this.freeSlots -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(
            new BrowserBusyError(
              `No browser slot became free within ${this.settings.queueTimeoutMs} ms (${this.settings.concurrency} pages at once on this worker).`,
            ),
          );
        }, this.settings.queueTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private giveSlot(): void {
    const next = this.waiters.shift();
    if (next) next.grant();
    else this.freeSlots += 1;
  }
}
