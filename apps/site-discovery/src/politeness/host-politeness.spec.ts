import fc from 'fast-check';
import { FetchGate } from '../site-map/fetch-gate';
import { HostPoliteness } from './host-politeness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HostPoliteness and FetchGate', () => {
  it('never has more than the cap in flight on a host, or in the process, and runs every turn (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 30 }),
        async (hostCap, processCap, turns) => {
          const politeness = new HostPoliteness(hostCap);
          const gate = new FetchGate(processCap);
          const active = new Map<string, number>();
          let inProcess = 0;
          let peakProcess = 0;
          let peakHost = 0;
          const deadline = Date.now() + 10_000;
          const results = await Promise.all(
            turns.map(([host, ms]) =>
              gate.inTurn(deadline, () =>
                politeness.inTurn(host, deadline, async () => {
                  inProcess += 1;
                  active.set(host, (active.get(host) ?? 0) + 1);
                  peakProcess = Math.max(peakProcess, inProcess);
                  peakHost = Math.max(peakHost, active.get(host)!);
                  await sleep(ms);
                  active.set(host, active.get(host)! - 1);
                  inProcess -= 1;
                  return true;
                }),
              ),
            ),
          );
          expect(results.every((r) => r === true)).toBe(true);
          expect(peakHost).toBeLessThanOrEqual(hostCap);
          expect(peakProcess).toBeLessThanOrEqual(processCap);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('spaces request starts on a host by its Crawl-delay, one at a time, other hosts unaffected', async () => {
    const politeness = new HostPoliteness(4);
    politeness.setCrawlDelay('slow', 0.2);
    const starts: Record<string, number[]> = { slow: [], fast: [] };
    const deadline = Date.now() + 5_000;
    await Promise.all(
      ['slow', 'slow', 'slow', 'fast', 'fast', 'fast'].map((host) =>
        politeness.inTurn(host, deadline, async () => {
          starts[host].push(Date.now());
        }),
      ),
    );
    const gaps = starts.slow.slice(1).map((t, i) => t - starts.slow[i]);
    expect(gaps.every((gap) => gap >= 190)).toBe(true);
    expect(starts.fast[2] - starts.fast[0]).toBeLessThan(100);
  });

  it('refuses a turn that could not start before the deadline instead of queueing past it', async () => {
    const politeness = new HostPoliteness(1);
    politeness.setCrawlDelay('h', 30);
    const deadline = Date.now() + 300;
    const first = politeness.inTurn('h', deadline, async () => 'ran');
    const second = politeness.inTurn('h', deadline, async () => 'ran');
    await expect(first).resolves.toBe('ran');
    await expect(second).resolves.toBeNull();
    const gate = new FetchGate(1);
    const held = gate.inTurn(Date.now() + 1_000, () => sleep(200).then(() => 'held'));
    await expect(gate.inTurn(Date.now() + 50, async () => 'late')).resolves.toBeNull();
    await expect(held).resolves.toBe('held');
    await expect(gate.inTurn(Date.now() + 50, async () => 'free')).resolves.toBe('free');
  });
});
