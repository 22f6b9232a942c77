import { performance } from 'node:perf_hooks';

/** What the reclaimer reads of the process: adapters, so a test can drive it without timers or a real heap. */
export interface ProcessMemoryProbe {
  /** Share of the last interval the event loop spent working, 0..1. */
  eventLoopBusy(): number;
  /** V8's heap in use plus its external memory (ArrayBuffers and Buffers, which a full collection frees too). */
  memoryInUseBytes(): number;
  /** A full, compacting collection; null when the runtime does not expose one (node started without --expose-gc). */
  readonly collect: (() => void) | null;
}

// Below this share of an interval spent working, the process is idle: a full collection then pauses nobody.
const IDLE_BUSY_SHARE = 0.02;
// Memory in use grown by less than this since the last collection is not worth a full pause.
const MIN_GROWTH_BYTES = 4 * 1024 * 1024;

/**
 * Gives memory back once a process has gone idle. V8 keeps the young generation grown to its
 * maximum (32 MB semi-spaces, decision 0009) and the old generation at its peak until a
 * collection happens to shrink them, and its own memory reducer starts only sometimes: a process
 * that boots, applies migrations or serves a burst and then waits keeps 60–130 MB it no longer
 * uses. After an interval in which the event loop was idle and the heap had grown since the last
 * time, one full collection runs; with glibc told to trim (MALLOC_TRIM_THRESHOLD_, set by the npm
 * scripts and the image) what it frees goes back to the system. One collection per idle period:
 * an idle process is not collected again until it has done work.
 */
export class IdleMemoryReclaimer {
  private timer: NodeJS.Timeout | null = null;
  private inUseAfterLastCollection = 0;
  collections = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly probe: ProcessMemoryProbe = nodeMemoryProbe(),
    /** Below this share of an interval spent working, the event loop counts as idle. */
    private readonly idleBusyShare = IDLE_BUSY_SHARE,
  ) {}

  /** false when reclaiming is off (interval 0) or the runtime has no collection to run. */
  start(): boolean {
    if (this.intervalMs <= 0 || !this.probe.collect) return false;
    this.probe.eventLoopBusy();
    this.timer ??= setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
    return true;
  }

  /** One check: collects when the last interval was idle and the heap has grown since the last collection. */
  tick(): boolean {
    const busy = this.probe.eventLoopBusy();
    if (!this.probe.collect || busy >= this.idleBusyShare) return false;
    if (this.probe.memoryInUseBytes() - this.inUseAfterLastCollection < MIN_GROWTH_BYTES) return false;
    this.probe.collect();
    this.collections += 1;
    this.inUseAfterLastCollection = this.probe.memoryInUseBytes();
    return true;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** The running process: event-loop utilisation since the previous reading, V8's heap, and global gc when exposed. */
export function nodeMemoryProbe(): ProcessMemoryProbe {
  let last = performance.eventLoopUtilization();
  const gc = (globalThis as { gc?: () => void }).gc;
  return {
    eventLoopBusy() {
      const now = performance.eventLoopUtilization();
      const delta = performance.eventLoopUtilization(now, last);
      last = now;
      return delta.utilization;
    },
    // External memory counts: the embedded database's thread holds ~550 MB of dead ArrayBuffers
    // after opening and migrating (PGlite's file-system image among them) while its heap grows by
    // less than MIN_GROWTH_BYTES.
    memoryInUseBytes: () => {
      const { heapUsed, external } = process.memoryUsage();
      return heapUsed + external;
    },
    collect: typeof gc === 'function' ? () => gc() : null,
  };
}
