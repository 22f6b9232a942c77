import type { CDPSession } from 'rebrowser-puppeteer-core';

interface RequestEvent {
  requestId: string;
}

/** How long after `load` a page is given to finish what it started (the fetches that fill it). */
export interface SettleWindow {
  /** No request in flight for this long: the page has settled. */
  idleMs: number;
  /** Never wait longer than this in all (a page that polls or streams is never idle). */
  maxMs: number;
}

/**
 * The page's requests in flight, counted from the protocol's own events on the page's session
 * (`Network.requestWillBeSent` opens a request; `loadingFinished` or `loadingFailed` closes it; a
 * redirect keeps its id open). Puppeteer's `waitForNetworkIdle` counts its own page events instead,
 * and through a proxy it can emit a response before the request it answers: the request then stays
 * "in flight" forever and every such page waits the whole maximum. Counting ids as a set cannot
 * be left open by the order events are delivered in.
 *
 * Subscribe before `Network.enable` (PageBudget enables the domain on the same session). Requests
 * of out-of-process frames (cross-site iframes: mostly ads and widgets) run on their own sessions
 * and are not waited for.
 */
export class NetworkSettle {
  private readonly inFlight = new Set<string>();
  /** Ids closed before they were seen open, so a late `requestWillBeSent` does not reopen them. */
  private readonly closedEarly = new Set<string>();
  private readonly waiters = new Set<() => void>();

  constructor(cdp: CDPSession) {
    cdp.on('Network.requestWillBeSent', (event: RequestEvent) => {
      if (this.closedEarly.delete(event.requestId)) return;
      this.inFlight.add(event.requestId);
      this.changed();
    });
    const close = (event: RequestEvent) => {
      if (!this.inFlight.delete(event.requestId)) this.closedEarly.add(event.requestId);
      this.changed();
    };
    cdp.on('Network.loadingFinished', close);
    cdp.on('Network.loadingFailed', close);
  }

  /** Requests open now. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Resolves once nothing has been in flight for `idleMs`, or after `maxMs` at the latest; never rejects. */
  settled({ idleMs, maxMs }: SettleWindow): Promise<void> {
    return new Promise((resolve) => {
      let quiet: NodeJS.Timeout | null = null;
      const done = () => {
        clearTimeout(limit);
        if (quiet) clearTimeout(quiet);
        this.waiters.delete(check);
        resolve();
      };
      const check = () => {
        if (this.inFlight.size > 0) {
          if (quiet) clearTimeout(quiet);
          quiet = null;
        } else if (!quiet) quiet = setTimeout(done, idleMs);
      };
      const limit = setTimeout(done, maxMs);
      this.waiters.add(check);
      check();
    });
  }

  private changed(): void {
    for (const check of this.waiters) check();
  }
}
