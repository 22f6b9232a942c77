/**
 * Who asks for a page slot, and how the answer may come. A client's `share` is the most pages it
 * may have rendering at once on this worker (a page whose answer has gone out no longer counts,
 * though its slot is taken until its context has closed). `plan` is the most it may have
 * rendering or waiting at once (its plan's browser concurrency, at least the share): a claim past
 * the share but within the plan waits its turn, fairly, for up to `waitMs`. `onOverPlan` says what
 * a claim past the plan gets: `refuse` (a sync call: answered 429 at once) or `wait` (a batch job,
 * whose run already bounds how many it sends: it queues until one of its client's pages ends).
 */
export interface SlotClaim {
  clientId: string;
  share: number;
  /** Pages rendering or waiting at once; absent: the share. */
  plan?: number;
  onOverPlan: 'refuse' | 'wait';
  /** Longest wait in the queue before the claim gives up. */
  waitMs: number;
}

/**
 * A slot held by one claim. `pageEnded` says the page's work is done (its answer is on its way): it
 * stops counting against its client's share, while the slot itself stays taken until `release`
 * (its context has closed), so the worker's bound on open contexts holds. Each acts once.
 */
export interface SlotTicket {
  waitedMs: number;
  pageEnded(): void;
  release(): void;
}

/**
 * A sync claim the client's own pages stand in the way of: it already has its plan's pages
 * rendering or waiting on this worker (`waited` 0, refused at once), or it waited `waited` ms
 * for one of its own pages to end and none did.
 */
export class SlotShareExceededError extends Error {
  constructor(
    readonly clientId: string,
    readonly plan: number,
    /** Seconds until one of its slots is likely free again. */
    readonly retryAfterSeconds: number,
    readonly waited = 0,
    share = plan,
  ) {
    super(
      waited === 0
        ? `This client already has ${plan} browser page${plan === 1 ? '' : 's'} rendering or waiting on this worker, the most its plan allows at once; send the next one when one of them has finished.`
        : `This client's ${share} browser page${share === 1 ? '' : 's'} rendering on this worker (the most one client renders at once here) did not finish within ${waited} ms of waiting; send it again when one of them has finished.`,
    );
  }
}

/** No slot became free for the claim within its wait: every slot is busy with other clients' pages. */
export class SlotWaitExpiredError extends Error {
  constructor(
    waitMs: number,
    capacity: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`No browser page slot became free within ${waitMs} ms (all ${capacity} slots of this worker are busy).`);
  }
}

/** The slots are closed (the worker is shutting down). */
export class SlotsClosedError extends Error {}

interface Waiter {
  claim: SlotClaim;
  /** Arrival order: among clients that hold as few slots, the one waiting longest goes first. */
  seq: number;
  grant: () => void;
  fail: (error: Error) => void;
  timer: NodeJS.Timeout;
}

// Until pages have been measured, a slot is assumed to free within this long (a typical page load).
const INITIAL_HOLD_ESTIMATE_MS = 5000;
// Weight of the newest hold time in the running estimate: recent pages say most about the next.
const HOLD_ESTIMATE_WEIGHT = 0.2;

/**
 * A worker's browser page slots, shared fairly between clients. A free slot goes to the waiting
 * client that holds the fewest slots now (the longest-waiting first among equals), never to one at
 * its share; so a client flooding the worker renders at most its share, its other pages wait
 * behind its own, and everyone else's requests start as soon as a slot frees, ahead of the flood's
 * queue. Nothing is pre-empted: a page once started runs to its end.
 */
export class PageSlots {
  private free: number;
  private readonly held = new Map<string, number>();
  private readonly waiters: Waiter[] = [];
  private seq = 0;
  private closed = false;
  private holdEstimateMs = INITIAL_HOLD_ESTIMATE_MS;

  constructor(readonly capacity: number) {
    this.free = capacity;
  }

  /** A slot for `claim`: at once when one is free and the client is under its share, else queued. */
  take(claim: SlotClaim): Promise<SlotTicket> {
    if (this.closed) return Promise.reject(new SlotsClosedError('The browser pool is shutting down.'));
    const share = Math.max(1, claim.share);
    const plan = Math.max(share, claim.plan ?? share);
    const asked = performance.now();
    if (claim.onOverPlan === 'refuse' && this.heldBy(claim.clientId) + this.queuedFor(claim.clientId) >= plan)
      return Promise.reject(new SlotShareExceededError(claim.clientId, plan, this.retryAfterSeconds()));
    // Waiters exist while slots are free only when each of them is at its share: this claim may pass them.
    if (this.free > 0 && this.heldBy(claim.clientId) < share) return Promise.resolve(this.hand(claim, asked));
    return new Promise<SlotTicket>((resolve, reject) => {
      const waiter: Waiter = {
        claim: { ...claim, share },
        seq: this.seq++,
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(this.hand(claim, asked));
        },
        fail: (error) => {
          clearTimeout(waiter.timer);
          reject(error);
        },
        timer: setTimeout(() => {
          this.drop(waiter);
          // A sync claim kept waiting by its own client's pages is told so (429), not that the
          // worker is full (503): it is the client's traffic, not the deployment, that held it.
          const ownPages = this.heldBy(claim.clientId) >= share;
          reject(
            claim.onOverPlan === 'refuse' && ownPages
              ? new SlotShareExceededError(claim.clientId, plan, this.retryAfterSeconds(), claim.waitMs, share)
              : new SlotWaitExpiredError(claim.waitMs, this.capacity, this.retryAfterSeconds()),
          );
        }, claim.waitMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Refuses every waiting claim and any new one. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.fail(new SlotsClosedError('The browser pool is shutting down.'));
  }

  /** `heldByClient`: pages counted against each client's share (slots whose page has ended are in neither). */
  stats(): { free: number; queued: number; heldByClient: Record<string, number> } {
    return { free: this.free, queued: this.waiters.length, heldByClient: Object.fromEntries(this.held) };
  }

  /** Seconds a refused caller should wait: about one page's hold time as pages have held, 1 to 30. */
  retryAfterSeconds(): number {
    return Math.min(30, Math.max(1, Math.ceil(this.holdEstimateMs / 1000)));
  }

  private heldBy(clientId: string): number {
    return this.held.get(clientId) ?? 0;
  }

  private queuedFor(clientId: string): number {
    let count = 0;
    for (const waiter of this.waiters) if (waiter.claim.clientId === clientId) count += 1;
    return count;
  }

  private hand(claim: SlotClaim, asked: number): SlotTicket {
    this.free -= 1;
    this.held.set(claim.clientId, this.heldBy(claim.clientId) + 1);
    const grantedAt = performance.now();
    let counted = true;
    let released = false;
    // The client's count drops when its page ends: a client that sends its next page as each
    // answer arrives, keeping exactly its share in flight, is never refused for the moments its
    // previous pages' contexts take to close. Retry-After estimates when a share frees, so it
    // times grant → page end.
    const uncount = () => {
      if (!counted) return;
      counted = false;
      const holdMs = performance.now() - grantedAt;
      this.holdEstimateMs += HOLD_ESTIMATE_WEIGHT * (holdMs - this.holdEstimateMs);
      const left = this.heldBy(claim.clientId) - 1;
      if (left > 0) this.held.set(claim.clientId, left);
      else this.held.delete(claim.clientId);
    };
    return {
      waitedMs: grantedAt - asked,
      pageEnded: () => {
        if (released || !counted) return;
        uncount();
        this.dispatch();
      },
      release: () => {
        if (released) return;
        released = true;
        uncount();
        this.free += 1;
        this.dispatch();
      },
    };
  }

  /** Hands free slots to the waiters that should have them: fewest slots held first, then arrival. */
  private dispatch(): void {
    while (this.free > 0 && !this.closed) {
      let next: Waiter | null = null;
      for (const waiter of this.waiters) {
        const held = this.heldBy(waiter.claim.clientId);
        if (held >= waiter.claim.share) continue;
        if (
          next === null ||
          held < this.heldBy(next.claim.clientId) ||
          (held === this.heldBy(next.claim.clientId) && waiter.seq < next.seq)
        )
          next = waiter;
      }
      if (!next) return;
      this.drop(next);
      next.grant();
    }
  }

  private drop(waiter: Waiter): void {
    const index = this.waiters.indexOf(waiter);
    if (index >= 0) this.waiters.splice(index, 1);
  }
}
