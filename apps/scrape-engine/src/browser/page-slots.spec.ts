import fc from 'fast-check';
import { PageSlots, type SlotClaim, SlotShareExceededError, SlotsClosedError, type SlotTicket, SlotWaitExpiredError } from './page-slots';

const LONG_WAIT_MS = 60_000;
const claim = (
  clientId: string,
  share: number,
  onOverPlan: 'refuse' | 'wait' = 'wait',
  waitMs = LONG_WAIT_MS,
  plan = share,
): SlotClaim => ({ clientId, share, plan, onOverPlan, waitMs });

/** Lets settled promises run their callbacks (grants resolve synchronously, their awaiters on the next ticks). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe(PageSlots.name, () => {
  it('keeps every invariant of fair sharing whatever clients ask and release, in any order', async () => {
    const clients = ['a', 'b', 'c', 'd'] as const;
    const step = fc.oneof(
      fc.record({
        op: fc.constant('take' as const),
        client: fc.constantFrom(...clients),
        share: fc.integer({ min: 1, max: 4 }),
        // How many more the plan lets wait beyond the share.
        extra: fc.integer({ min: 0, max: 3 }),
        refuse: fc.boolean(),
      }),
      fc.record({ op: fc.constant('release' as const), pick: fc.nat() }),
      // The page's answer went out; its context is still closing (the slot stays taken).
      fc.record({ op: fc.constant('end' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(step, { minLength: 1, maxLength: 60 }), async (capacity, steps) => {
        const slots = new PageSlots(capacity);
        const shares = new Map<string, number>();
        const plans = new Map<string, number>();
        // Tickets not yet released; `ended`: the page is done, its slot not yet given back.
        const holding: Array<{ client: string; ticket: SlotTicket; ended: boolean }> = [];
        const waiting = new Map<number, { client: string; share: number }>();
        const grantedFromQueue: Array<{ client: string; heldOthers: Map<string, number>; waitersAtGrant: string[] }> = [];
        let nextId = 0;
        let closing = false;

        // Pages counted against a client's share: granted and not yet ended.
        const heldBy = (client: string) => holding.filter((h) => h.client === client && !h.ended).length;
        for (const s of steps) {
          if (s.op === 'take') {
            // One share per client, as a client's plan gives it.
            const share = shares.get(s.client) ?? s.share;
            shares.set(s.client, share);
            const plan = plans.get(s.client) ?? share + s.extra;
            plans.set(s.client, plan);
            const queuedBefore = [...waiting.values()].filter((w) => w.client === s.client).length;
            const heldBefore = heldBy(s.client);
            const id = nextId++;
            let outcome = 'pending' as 'granted' | 'refused' | 'pending';
            const taking = slots.take(claim(s.client, share, s.refuse ? 'refuse' : 'wait', LONG_WAIT_MS, plan)).then(
              (ticket) => {
                outcome = 'granted';
                if (waiting.has(id)) {
                  // What every client held just before this grant (the test's own count is updated below).
                  const snapshot = new Map(clients.map((c) => [c, heldBy(c)]));
                  grantedFromQueue.push({
                    client: s.client,
                    heldOthers: snapshot,
                    waitersAtGrant: [...waiting.values()].map((w) => w.client),
                  });
                  waiting.delete(id);
                }
                holding.push({ client: s.client, ticket, ended: false });
              },
              (error: unknown) => {
                outcome = 'refused';
                expect(error).toBeInstanceOf(closing ? SlotsClosedError : SlotShareExceededError);
                waiting.delete(id);
              },
            );
            waiting.set(id, { client: s.client, share });
            await settle();
            // Refused exactly when a sync claim finds its plan's pages already rendering or waiting.
            if (outcome === 'refused') {
              expect(s.refuse).toBe(true);
              expect(heldBefore + queuedBefore).toBeGreaterThanOrEqual(plan);
            } else if (s.refuse) {
              expect(heldBefore + queuedBefore).toBeLessThan(plan);
            }
            void taking;
          } else if (s.op === 'release' && holding.length > 0) {
            const [released] = holding.splice(s.pick % holding.length, 1);
            released.ticket.release();
            released.ticket.release(); // a second release gives nothing back
            released.ticket.pageEnded(); // nor does ending a released page
            await settle();
          } else if (s.op === 'end') {
            const running = holding.filter((h) => !h.ended);
            if (running.length > 0) {
              const ended = running[s.pick % running.length];
              ended.ended = true;
              ended.ticket.pageEnded();
              ended.ticket.pageEnded(); // once
              await settle();
            }
          }
          const stats = slots.stats();
          // Conservation: every slot is free or held by exactly one ticket (ended pages' included),
          // and the share counts are exactly the pages not yet ended.
          expect(stats.free + holding.length).toBe(capacity);
          expect(Object.values(stats.heldByClient).reduce((a, b) => a + b, 0)).toBe(holding.filter((h) => !h.ended).length);
          // No client ever holds more than its share.
          for (const client of clients) expect(heldBy(client)).toBeLessThanOrEqual(shares.get(client) ?? capacity);
          // Work-conserving: no slot stays free while a waiting client is under its share.
          if (stats.free > 0) for (const w of waiting.values()) expect(heldBy(w.client)).toBeGreaterThanOrEqual(w.share);
          expect(stats.queued).toBe(waiting.size);
        }
        // Fair order: a slot handed from the queue went to a client that held (before the grant) no
        // more than any other client still waiting under its share.
        for (const grant of grantedFromQueue) {
          const mine = grant.heldOthers.get(grant.client)!;
          for (const other of grant.waitersAtGrant) {
            if (other === grant.client) continue;
            const theirs = grant.heldOthers.get(other)!;
            if (theirs < (shares.get(other) ?? capacity)) expect(mine).toBeLessThanOrEqual(theirs);
          }
        }
        closing = true;
        slots.close();
        await settle();
        expect(waiting.size).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it("hands the next free slot to another client ahead of a flooding client's queue", async () => {
    const slots = new PageSlots(3);
    const flood = await Promise.all([slots.take(claim('a', 3)), slots.take(claim('a', 3)), slots.take(claim('a', 3))]);
    const order: string[] = [];
    const queuedFlood = [1, 2, 3].map(() => slots.take(claim('a', 3)).then((t) => (order.push('a'), t)));
    const other = slots.take(claim('b', 1)).then((t) => (order.push('b'), t));
    flood[0].release();
    await settle();
    expect(order).toEqual(['b']);
    flood[1].release();
    await settle();
    expect(order).toEqual(['b', 'a']);
    slots.close();
    await Promise.allSettled([...queuedFlood, other]);
  });

  it('never refuses a client that keeps exactly its share in flight while its earlier contexts are still closing', async () => {
    // Capacity for the share plus the contexts still closing; each answer is followed by the next request at once.
    const slots = new PageSlots(6);
    const share = 4;
    const inFlight = await Promise.all(Array.from({ length: share }, () => slots.take(claim('a', share, 'refuse'))));
    const closing: SlotTicket[] = [];
    for (let round = 0; round < 20; round += 1) {
      const done = inFlight.shift()!;
      done.pageEnded(); // its answer goes out; its context closes later
      closing.push(done);
      // Contexts close two answers behind.
      if (closing.length > 2) closing.shift()!.release();
      inFlight.push(await slots.take(claim('a', share, 'refuse')));
    }
    expect(slots.stats().heldByClient).toEqual({ a: share });
    // Past its share it is still refused at once: ended pages free the share, not more.
    await expect(slots.take(claim('a', share, 'refuse'))).rejects.toBeInstanceOf(SlotShareExceededError);
    // When closing contexts fill the worker, the next page within the share waits for a slot
    // (it is not refused), and gets the first one given back.
    const last = inFlight.shift()!;
    last.pageEnded();
    closing.push(last);
    expect(slots.stats().free).toBe(0);
    let granted: SlotTicket | null = null;
    const waiting = slots.take(claim('a', share, 'refuse')).then((ticket) => (granted = ticket));
    await settle();
    expect(granted).toBeNull();
    closing.shift()!.release();
    await waiting;
    expect(granted).not.toBeNull();
    for (const ticket of [...inFlight, ...closing, granted!]) ticket.release();
    expect(slots.stats()).toMatchObject({ free: 6, queued: 0, heldByClient: {} });
  });

  it('refuses a sync claim past its share at once, with a Retry-After from measured page times', async () => {
    const slots = new PageSlots(4);
    const held = await slots.take(claim('a', 1, 'refuse'));
    await expect(slots.take(claim('a', 1, 'refuse'))).rejects.toMatchObject({ retryAfterSeconds: 5 });
    held.release();
    // The estimate follows real hold times: a page held ~0 ms pulls it down, to at least 1 s.
    for (let i = 0; i < 30; i += 1) (await slots.take(claim('a', 1, 'refuse'))).release();
    expect(slots.retryAfterSeconds()).toBe(1);
  });

  it('queues a sync claim past its share but within its plan, behind other clients, and grants it when its own page ends', async () => {
    const slots = new PageSlots(4);
    // Share 3 (the worker keeps one slot from any one client), plan 5.
    const take = (client: string) => slots.take(claim(client, client === 'a' ? 3 : 1, 'refuse', LONG_WAIT_MS, client === 'a' ? 5 : 1));
    const running = await Promise.all([take('a'), take('a'), take('a')]);
    const order: string[] = [];
    const waiting = [take('a'), take('a')].map((p) => p.then((t) => (order.push('a'), t)));
    await settle();
    expect(slots.stats()).toMatchObject({ free: 1, queued: 2, heldByClient: { a: 3 } });
    // Past its plan (3 rendering + 2 waiting): refused at once.
    await expect(take('a')).rejects.toMatchObject({ plan: 5, waited: 0 });
    // Another client still starts at once on the slot kept from the flood.
    const other = await take('b');
    // Its own page ends: its first waiting page takes the share back (the slot is free once the context closes).
    running[0].pageEnded();
    running[0].release();
    await settle();
    expect(order).toEqual(['a']);
    for (const t of [...running.slice(1), other, ...(await Promise.all(waiting.slice(0, 1)))]) t.release();
    await waiting[1].then((t) => t.release());
    expect(slots.stats()).toMatchObject({ free: 4, queued: 0, heldByClient: {} });
  });

  it("tells a sync claim that waited out its own client's pages 429 (share exceeded), and one that other clients kept out 503 (wait expired)", async () => {
    const slots = new PageSlots(3);
    const own = await Promise.all([slots.take(claim('a', 2, 'refuse', 50, 4)), slots.take(claim('a', 2, 'refuse', 50, 4))]);
    const waitedOnOwn = slots.take(claim('a', 2, 'refuse', 50, 4));
    await expect(waitedOnOwn).rejects.toBeInstanceOf(SlotShareExceededError);
    await expect(waitedOnOwn).rejects.toMatchObject({ waited: 50 });
    // A batch job (wait) is never told 429: its wait ran out like any other.
    await expect(slots.take(claim('a', 2, 'wait', 50, 4))).rejects.toBeInstanceOf(SlotWaitExpiredError);
    // Another client fills the last slot; a third client under its share waits for others' pages.
    const filler = await slots.take(claim('b', 2, 'refuse', 50, 2));
    await expect(slots.take(claim('c', 2, 'refuse', 50, 2))).rejects.toBeInstanceOf(SlotWaitExpiredError);
    for (const t of [...own, filler]) t.release();
    expect(slots.stats()).toMatchObject({ free: 3, queued: 0 });
  });

  it('gives up a wait that outlasts waitMs (the worker is full), and fails waiters on close', async () => {
    const slots = new PageSlots(1);
    const held = await slots.take(claim('a', 1));
    await expect(slots.take(claim('b', 1, 'refuse', 50))).rejects.toBeInstanceOf(SlotWaitExpiredError);
    expect(slots.stats().queued).toBe(0);
    const waiting = slots.take(claim('b', 1));
    slots.close();
    await expect(waiting).rejects.toBeInstanceOf(SlotsClosedError);
    await expect(slots.take(claim('c', 1))).rejects.toBeInstanceOf(SlotsClosedError);
    held.release();
  });
});
