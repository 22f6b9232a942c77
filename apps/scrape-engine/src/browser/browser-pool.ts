import { renderingShare } from '@lib/plans';
import { Logger } from '@nestjs/common';
import type { Browser } from 'rebrowser-puppeteer-core';
import {
  askBrowserToClose,
  type BrowserEnd,
  type BrowserKind,
  type BrowserLauncher,
  BrowserStartError,
  type LaunchedBrowser,
} from './browser-launcher';
import { PageSlots, type SlotTicket, SlotWaitExpiredError, SlotsClosedError } from './page-slots';
import type { BrowserClientHints } from './fingerprint-profile';

export { SlotShareExceededError } from './page-slots';

export interface BrowserPoolSettings {
  /** Pages rendered at once by this worker, both kinds together. */
  concurrency: number;
  /** Longest wait for a page slot, unless the lease sets its own. */
  queueTimeoutMs: number;
  /** Contexts a browser serves before it is replaced. */
  recycleAfter: number;
  /**
   * A browser with no page open for this long is closed, and the next request starts one again
   * (a few hundred ms). Idle Chromium holds 150–400 MB per kind; 0 keeps browsers open.
   */
  idleCloseMs?: number;
}

/**
 * Why a browser ended. `crash`: it died without the pool closing it, whatever the pool had planned
 * for it (a browser retiring after its page budget that is killed while it finishes its pages
 * crashed: those pages fail). The others are closes of the pool's own: `page_budget`
 * (recycleAfter), `hung` (a lease said so), `idle` (idleCloseMs without a page), `shutdown`.
 */
export type BrowserExitCause = 'crash' | 'page_budget' | 'hung' | 'idle' | 'shutdown';

/** One browser's end, told exactly once per browser process the pool started. */
export interface BrowserExit {
  kind: BrowserKind;
  pid: number | null;
  cause: BrowserExitCause;
  /** Pages open on it when it ended (a crash fails them). */
  pagesInFlight: number;
  /** Contexts it served in its life. */
  pagesServed: number;
  /** For a crash: the signal or exit code, or what went wrong while it was starting. */
  detail: string;
  /** True when it ended before it ever served: killed or broken while starting. */
  whileStarting: boolean;
}

/** What the pool tells the rest of the process about its browsers (ops events, metrics). */
export interface BrowserPoolObserver {
  exited(exit: BrowserExit): void;
}

const UNOBSERVED: BrowserPoolObserver = { exited: () => undefined };

/** No page slot became free within the wait (or the pool is shutting down). */
export class BrowserBusyError extends Error {
  constructor(
    message: string,
    /** Seconds until a slot is likely free: about one page's time. */
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}

/**
 * The client a page is for. `slots`: its plan's browser pages at once (absent: no plan cap). Each
 * client renders at most min(slots, concurrency − 1) pages of this worker at once, so one client
 * alone can never take every slot: another client's page starts as soon as it asks; its pages past
 * that, up to `slots`, wait their turn (fairly, at most `waitMs`). `onOverPlan`: `refuse` answers
 * a request past `slots` at once (SlotShareExceededError), `wait` queues it.
 */
export interface BrowserTenant {
  clientId: string;
  slots?: number;
  onOverPlan: 'refuse' | 'wait';
  /** Longest wait for a slot (a batch job passes its deadline); default queueTimeoutMs. */
  waitMs?: number;
}

// A lease made without a tenant (warm-up, tests of the pool itself): one client, no cap.
const UNNAMED_CLIENT = '';

interface PooledBrowser extends LaunchedBrowser {
  served: number;
  active: number;
  /** Why it takes no new leases (it closes when its last page ends); null while it serves. */
  retiredFor: Exclude<BrowserExitCause, 'crash'> | null;
  /** Why the pool is closing it; null while the pool has not started to (an end then is a crash). */
  closingFor: Exclude<BrowserExitCause, 'crash'> | null;
  /** The pool sent its process SIGKILL (a hang, or a close that took too long). */
  killedByPool: boolean;
  dead: boolean;
  idleTimer: NodeJS.Timeout | null;
  /** Settles after its end has been handled and told. */
  gone: Promise<void>;
}

/** A page slot on a live browser of the asked kind; release it exactly once. */
export interface BrowserLease {
  browser: Browser;
  kind: BrowserKind;
  version: string;
  /** The browser's own client hints (LaunchedBrowser.clientHints). */
  clientHints: BrowserClientHints;
  queueWaitMs: number;
  /** Time spent starting a browser for this lease (0 when a warm one was there). */
  launchMs: number;
  /**
   * The page's work is done and its answer is on its way: it stops counting against its client's
   * share (PageSlots); the slot stays taken until `release`, after its context has closed.
   */
  pageEnded(): void;
  /** `broken`: the browser hung or misbehaved; it is killed and replaced. */
  release(outcome?: { broken: boolean }): Promise<void>;
}

/**
 * Browsers of two kinds, started on first use and closed after `idleCloseMs` without a page,
 * behind page slots shared fairly between clients (PageSlots). One browser per kind serves
 * many isolated contexts at once; it is replaced after `recycleAfter` contexts, when it crashes
 * (its leases fail, later ones get a new browser) and when a lease reports it hung. A retiring
 * browser finishes its pages before it is closed, so a replacement never cuts a request short.
 * Every browser process it starts is told to the observer exactly once, when it ends, as what its
 * end was: a close of the pool's (with the reason the pool closed it) or a crash.
 */
export class BrowserPool {
  private readonly logger = new Logger('BrowserPool');
  private readonly slots: PageSlots;
  private readonly current = new Map<BrowserKind, Promise<PooledBrowser>>();
  private readonly all = new Set<PooledBrowser>();
  private closed = false;
  private launches = 0;

  constructor(
    private readonly launcher: BrowserLauncher,
    private readonly settings: BrowserPoolSettings,
    private readonly observer: BrowserPoolObserver = UNOBSERVED,
  ) {
    this.slots = new PageSlots(settings.concurrency);
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

  async lease(kind: BrowserKind, tenant?: BrowserTenant): Promise<BrowserLease> {
    if (this.closed) throw new BrowserBusyError('The browser pool is shutting down.');
    const ticket = await this.takeSlot(tenant);
    const queueWaitMs = ticket.waitedMs;
    let pooled: PooledBrowser;
    // Waiting for a browser is launch time, whether this request started the launch or another did.
    const launchStarted = performance.now();
    try {
      const first = this.browserFor(kind);
      pooled = await first;
      // A closed connection is an ended browser even before its end is recorded (that waits up to
      // 1 s for the process's exit status): a request arriving in that second gets a new browser.
      if (pooled.dead || pooled.retiredFor || !pooled.browser.connected) {
        // Ended or retired before the pool stopped handing it out: forget it (only it) and start another.
        if (this.current.get(kind) === first) this.current.delete(kind);
        pooled = await this.browserFor(kind);
      }
    } catch (error) {
      ticket.release();
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
      clientHints: pooled.clientHints,
      queueWaitMs,
      launchMs,
      pageEnded: () => ticket.pageEnded(),
      release: async (outcome) => {
        if (released) return;
        released = true;
        pooled.active -= 1;
        ticket.release();
        if (outcome?.broken) {
          this.logger.warn(`${kind} browser ${pooled.pid ?? '?'} hung; replacing it`);
          this.retire(pooled, 'hung');
          await this.destroy(pooled, 'hung', true);
        } else if (pooled.retiredFor && pooled.active === 0) {
          await this.destroy(pooled, pooled.retiredFor, false);
        } else if (pooled.active === 0) {
          this.startIdleTimer(pooled);
        }
      },
    };
  }

  /** Closes `pooled` once it has had no page open for idleCloseMs (started when its last page ends). */
  private startIdleTimer(pooled: PooledBrowser): void {
    const idleMs = this.settings.idleCloseMs ?? 0;
    if (idleMs <= 0 || this.closed || pooled.dead) return;
    this.stopIdleTimer(pooled);
    pooled.idleTimer = setTimeout(() => {
      pooled.idleTimer = null;
      if (pooled.active > 0 || pooled.dead || pooled.retiredFor || this.closed) return;
      this.logger.log(`${pooled.kind} browser ${pooled.pid ?? '?'} idle for ${idleMs} ms; closing it (the next request starts one)`);
      this.retire(pooled, 'idle');
      void this.destroy(pooled, 'idle', false);
    }, idleMs);
    pooled.idleTimer.unref();
  }

  private stopIdleTimer(pooled: PooledBrowser): void {
    if (pooled.idleTimer) clearTimeout(pooled.idleTimer);
    pooled.idleTimer = null;
  }

  /** Live browsers and slot use, for health and tests. */
  stats(): {
    /** `retiring`: past its page budget (or idle, or hung), it takes no new page and closes once its pages end. */
    browsers: Array<{ kind: BrowserKind; pid: number | null; active: number; served: number; retiring: boolean }>;
    freeSlots: number;
    queued: number;
    launches: number;
  } {
    const slots = this.slots.stats();
    return {
      launches: this.launches,
      browsers: [...this.all]
        .filter((b) => !b.dead)
        .map((b) => ({ kind: b.kind, pid: b.pid, active: b.active, served: b.served, retiring: b.retiredFor !== null })),
      freeSlots: slots.free,
      queued: slots.queued,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.slots.close();
    // Browsers still starting are closed as they arrive (browserFor); wait for those too, so
    // every end is told before close() returns.
    const starting = [...this.current.values()].map((launching) =>
      launching.then(
        (b) => b.gone,
        () => undefined,
      ),
    );
    await Promise.all([...[...this.all].map((b) => this.destroy(b, 'shutdown', false)), ...starting]);
    this.current.clear();
  }

  private browserFor(kind: BrowserKind): Promise<PooledBrowser> {
    const existing = this.current.get(kind);
    if (existing) return existing;
    const launching = this.launcher.launch(kind).then(
      (launched) => {
        this.launches += 1;
        const pooled = this.adopt(launched);
        if (this.closed)
          return this.destroy(pooled, 'shutdown', false).then(() => {
            throw new BrowserBusyError('The browser pool is shutting down.');
          });
        return pooled;
      },
      (error: unknown) => {
        // A process that was started and ended before it served (killed, crashed, or broken on its
        // first call) is a browser's end like any other; a missing executable started nothing.
        if (error instanceof BrowserStartError)
          this.tell({
            kind,
            pid: null,
            cause: 'crash',
            pagesInFlight: 0,
            pagesServed: 0,
            detail: error.message,
            whileStarting: true,
          });
        throw error;
      },
    );
    this.current.set(kind, launching);
    // A failed launch must not stick: the next request tries again.
    launching.catch(() => {
      if (this.current.get(kind) === launching) this.current.delete(kind);
    });
    return launching;
  }

  /** Takes a launched browser into the pool and watches for its end, from before anything can miss it. */
  private adopt(launched: LaunchedBrowser): PooledBrowser {
    const pooled: PooledBrowser = {
      ...launched,
      served: 0,
      active: 0,
      retiredFor: null,
      closingFor: null,
      killedByPool: false,
      dead: false,
      idleTimer: null,
      gone: launched.ended.then((end) => this.ended(pooled, end)),
    };
    this.all.add(pooled);
    // A browser started ahead of use (warm) closes too if nothing comes; a lease stops the timer.
    this.startIdleTimer(pooled);
    return pooled;
  }

  /** The one place a browser's end is handled and told, whichever way it came. */
  private ended(pooled: PooledBrowser, end: BrowserEnd): void {
    pooled.dead = true;
    this.stopIdleTimer(pooled);
    this.all.delete(pooled);
    this.forget(pooled);
    const how = end.signal ? `signal ${end.signal}` : end.code !== null ? `exit code ${end.code}` : 'disconnected';
    // The evidence decides, not the plan: a close of the pool's ends in a clean exit or in the
    // pool's own SIGKILL. A signal the pool did not send killed it, even while the pool was
    // closing it (a kill can land a moment before the pool decides to close a browser).
    const ours = pooled.closingFor !== null && (pooled.killedByPool || end.signal === null);
    const cause = ours ? pooled.closingFor! : 'crash';
    if (cause === 'crash') {
      this.logger.warn(
        `${pooled.kind} browser ${pooled.pid ?? '?'} ended under the pool (${how}, ${pooled.active} pages open); the next request starts a new one`,
      );
      // A connection that closed on a process still running would otherwise hold its memory for good.
      const child = pooled.browser.process();
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    this.tell({
      kind: pooled.kind,
      pid: pooled.pid,
      cause,
      pagesInFlight: pooled.active,
      pagesServed: pooled.served,
      detail: how,
      whileStarting: false,
    });
  }

  /** An observer that throws must not break the pool (a close would never return). */
  private tell(exit: BrowserExit): void {
    try {
      this.observer.exited(exit);
    } catch (error) {
      this.logger.error(`browser end not told: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** No new lease goes to `pooled`; it is closed once its last page ends. */
  private retire(pooled: PooledBrowser, reason: Exclude<BrowserExitCause, 'crash'>): void {
    pooled.retiredFor ??= reason;
    this.forget(pooled);
  }

  /** Stops handing out `pooled` for its kind (if it is still the one handed out). */
  private forget(pooled: PooledBrowser): void {
    const current = this.current.get(pooled.kind);
    if (current)
      void current.then(
        (b) => b === pooled && this.current.get(pooled.kind) === current && this.current.delete(pooled.kind),
        () => undefined,
      );
  }

  /**
   * Closes `pooled` for `cause` and returns once its end has been told. The first cause given is
   * the one told. `kill`: no polite close (it hung); a close that takes over 5 s ends in a kill too.
   */
  private async destroy(pooled: PooledBrowser, cause: Exclude<BrowserExitCause, 'crash'>, kill: boolean): Promise<void> {
    pooled.retiredFor ??= cause;
    // A browser whose connection had already closed ended on its own: its end is a crash.
    const alive = !pooled.dead && pooled.browser.connected;
    if (alive) pooled.closingFor ??= cause;
    this.stopIdleTimer(pooled);
    this.all.delete(pooled);
    const process = pooled.browser.process();
    if (!kill && alive) {
      // Asked, not killed: the only SIGKILL on this path is the pool's own, after 5 s.
      void askBrowserToClose(pooled.browser);
      const ended = pooled.gone.then(() => true);
      const inTime = await Promise.race([ended, new Promise<boolean>((resolve) => setTimeout(resolve, 5000, false).unref())]);
      if (inTime) return;
    }
    if (process && process.exitCode === null && process.signalCode === null) {
      if (alive) pooled.killedByPool = true;
      process.kill('SIGKILL');
    }
    await pooled.gone;
  }

  private async takeSlot(tenant: BrowserTenant | undefined): Promise<SlotTicket> {
    const concurrency = this.settings.concurrency;
    const waitMs = tenant?.waitMs ?? this.settings.queueTimeoutMs;
    try {
      return await this.slots.take(
        tenant
          ? {
              clientId: tenant.clientId,
              share: renderingShare(tenant.slots ?? concurrency, concurrency),
              plan: tenant.slots,
              onOverPlan: tenant.onOverPlan,
              waitMs,
            }
          : { clientId: UNNAMED_CLIENT, share: concurrency, onOverPlan: 'wait', waitMs },
      );
    } catch (error) {
      if (error instanceof SlotWaitExpiredError) throw new BrowserBusyError(error.message, error.retryAfterSeconds);
      if (error instanceof SlotsClosedError) throw new BrowserBusyError(error.message);
      throw error;
    }
  }
}
