import { WorkerLostError } from '@lib/errors';
import { createTransportClient, InProcessBus, MessageBus } from '@lib/messaging';
import fc from 'fast-check';
import { InFlightScrapes } from './in-flight-scrapes';

const newScrapes = () =>
  new InFlightScrapes(new MessageBus(createTransportClient('test', { natsUrl: null, bus: new InProcessBus() }), 1000));

describe(InFlightScrapes.name, () => {
  it('runs each request id once however often and whenever it is delivered, and answers every delivery alike', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            id: fc.constantFrom('a', 'b', 'c', 'd'),
            delayMs: fc.integer({ min: 0, max: 5 }),
            workMs: fc.integer({ min: 0, max: 5 }),
          }),
          {
            minLength: 1,
            maxLength: 20,
          },
        ),
        async (deliveries) => {
          const scrapes = newScrapes();
          const runs = new Map<string, number>();
          const answers = await Promise.all(
            deliveries.map(async ({ id, delayMs, workMs }) => {
              await new Promise((resolve) => setTimeout(resolve, delayMs));
              return scrapes.runOnce(`request-${id}`, id, async () => {
                runs.set(id, (runs.get(id) ?? 0) + 1);
                await new Promise((resolve) => setTimeout(resolve, workMs));
                return { fetchedFor: id, run: runs.get(id) };
              });
            }),
          );
          for (const id of new Set(deliveries.map((d) => d.id))) expect(runs.get(id)).toBe(1);
          deliveries.forEach(({ id }, i) => expect(answers[i]).toEqual({ fetchedFor: id, run: 1 }));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('answers a late duplicate whose answer is no longer kept with WorkerLostError, and still does not run it', async () => {
    const scrapes = newScrapes();
    let runs = 0;
    const work = async () => (runs += 1);
    await scrapes.runOnce('r', 'first', work);
    // 128 later answers push the first one out of the kept answers; its id is still remembered.
    for (let i = 0; i < 128; i += 1) await scrapes.runOnce('r', `later-${i}`, work);
    await expect(scrapes.runOnce('r', 'first', work)).rejects.toBeInstanceOf(WorkerLostError);
    expect(runs).toBe(129);
    expect(await scrapes.runOnce('r', 'later-127', work)).toBe(129);
  });

  it('runs calls that share a request id (a client may send one X-Request-Id every time) each once', async () => {
    const scrapes = newScrapes();
    let runs = 0;
    const work = async () => (runs += 1);
    expect(await Promise.all([scrapes.runOnce('same', 'call-1', work), scrapes.runOnce('same', 'call-2', work)])).toEqual([1, 2]);
    // A caller naming no call is never de-duplicated.
    await scrapes.runOnce('same', undefined, work);
    await scrapes.runOnce('same', undefined, work);
    expect(runs).toBe(4);
  });

  it('gives a duplicate the same failure as the run it joins, without running it again', async () => {
    const scrapes = newScrapes();
    let runs = 0;
    const failing = async () => {
      runs += 1;
      throw new Error('target refused');
    };
    await expect(scrapes.runOnce('r', 'x', failing)).rejects.toThrow('target refused');
    await expect(scrapes.runOnce('r', 'x', failing)).rejects.toThrow('target refused');
    expect(runs).toBe(1);
  });
});
