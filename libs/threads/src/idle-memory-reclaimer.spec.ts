import { IdleMemoryReclaimer, nodeMemoryProbe, type ProcessMemoryProbe } from './idle-memory-reclaimer';

const MB = 1024 * 1024;

function fakeProcess(): ProcessMemoryProbe & { busy: number; heap: number; collected: number } {
  const state = {
    busy: 0,
    heap: 80 * MB,
    collected: 0,
    eventLoopBusy: () => state.busy,
    memoryInUseBytes: () => state.heap,
    collect: () => {
      state.collected += 1;
      state.heap = 60 * MB;
    },
  };
  return state;
}

describe('IdleMemoryReclaimer', () => {
  it('counts an interval as idle below the busy share it was given (a database thread that answers pollers)', () => {
    const process = fakeProcess();
    process.busy = 0.05;
    expect(new IdleMemoryReclaimer(10_000, process).tick()).toBe(false);
    const lenient = new IdleMemoryReclaimer(10_000, process, 0.1);
    expect(lenient.tick()).toBe(true);
    process.busy = 0.2;
    process.heap += 100 * MB;
    expect(lenient.tick()).toBe(false);
  });

  it('collects once when idle, not again while nothing is allocated, and again after a burst of work', () => {
    const process = fakeProcess();
    const reclaimer = new IdleMemoryReclaimer(30_000, process);
    expect(reclaimer.tick()).toBe(true);
    expect(process.collected).toBe(1);
    // Still idle, heap unchanged: no second pause.
    process.heap += 1 * MB;
    expect(reclaimer.tick()).toBe(false);
    // Busy interval: never collects under load, however much the heap grew.
    process.busy = 0.6;
    process.heap += 200 * MB;
    expect(reclaimer.tick()).toBe(false);
    // The burst is over: one collection.
    process.busy = 0.001;
    expect(reclaimer.tick()).toBe(true);
    expect(process.collected).toBe(2);
  });

  it('is off at interval 0 and when the runtime exposes no collection', () => {
    expect(new IdleMemoryReclaimer(0, fakeProcess()).start()).toBe(false);
    const withoutGc = { ...fakeProcess(), collect: null };
    const reclaimer = new IdleMemoryReclaimer(30_000, withoutGc);
    expect(reclaimer.start()).toBe(false);
    expect(reclaimer.tick()).toBe(false);
  });

  it('reads the real process: utilisation between 0 and 1 and the memory in use (heap and external)', () => {
    const probe = nodeMemoryProbe();
    const busy = probe.eventLoopBusy();
    expect(busy).toBeGreaterThanOrEqual(0);
    expect(busy).toBeLessThanOrEqual(1);
    expect(probe.memoryInUseBytes()).toBeGreaterThan(MB);
  });
});
