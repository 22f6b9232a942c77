import type { PlatformConfig } from '@lib/config';
import type { ScrapeExecutionFacts, ScrapeRequest, ScrapeResultBody } from '@lib/contracts';
import { isSerializedAppError, RemoteAppError, WorkerLostError } from '@lib/errors';
import { startSourceThread } from '@lib/threads';
import { Logger } from '@nestjs/common';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { ThreadRequest } from './simple-scrape-thread';
import { type SimpleScrapeExecutor, type SimpleScrapeOptions } from '../sync-scrape/simple-scrape.executor';
import type { ThreadReply, ThreadSettings } from './simple-scrape-thread';

/** How long after a thread failed to load before another is tried. */
const START_AGAIN_AFTER_FAILURE_MS = 10_000;

type Outcome = { facts: ScrapeExecutionFacts; result: ScrapeResultBody };

interface EngineThread {
  worker: Worker;
  ready: boolean;
  inFlight: number;
  pending: Map<number, { resolve: (value: Outcome) => void; reject: (error: unknown) => void }>;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * Simple-mode scrapes on the machine's other cores (decision 0031). One scrape at a time runs on
 * the event loop, as before: handing it to a thread would only add the crossing (and the wake of
 * a sleeping core) to its latency. A scrape that starts while another is in flight goes to the
 * least busy engine thread (SIMPLE_ENGINE_THREADS), where the fetch, got-scraping's header
 * generation, the content checks and the formatting — a third of the event loop's work per
 * scrape at 16 in flight — happen beside the gateway, the bus and the ledger instead of between
 * them. Threads start on demand (scrapes stay on the event loop until one is ready) and end after
 * MEMORY_RECLAIM_IDLE_SECONDS without work, which gives their memory back to an idle platform.
 * A thread that dies fails the scrapes it held with WorkerLostError (503, retry at once; nothing
 * was charged); the next busy moment starts another.
 */
export class SimpleScrapeThreads {
  private readonly logger = new Logger(SimpleScrapeThreads.name);
  private readonly threads: EngineThread[] = [];
  private inFlight = 0;
  private nextId = 1;
  private closed = false;
  /** No thread is started before this time: the last one failed before it was ready. */
  private startAfter = 0;

  constructor(
    private readonly local: Pick<SimpleScrapeExecutor, 'execute'>,
    private readonly config: PlatformConfig,
  ) {}

  async execute(request: ScrapeRequest, options: SimpleScrapeOptions = {}): Promise<Outcome> {
    this.inFlight += 1;
    try {
      const thread = this.inFlight > 1 ? this.threadForNext() : null;
      return thread ? await this.onThread(thread, request, options) : await this.local.execute(request, options);
    } finally {
      this.inFlight -= 1;
    }
  }

  /** How many engine threads are up (started and answering). */
  get readyThreads(): number {
    return this.threads.filter((t) => t.ready).length;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.splice(0).map((t) => this.stop(t)));
  }

  /** The least busy ready thread; one more is started while there is room for it. */
  private threadForNext(): EngineThread | null {
    const { simpleEngineThreads } = this.config;
    if (this.closed || simpleEngineThreads === 0) return null;
    const ready = this.threads.filter((t) => t.ready);
    const idleReady = ready.some((t) => t.inFlight === 0);
    const room = this.threads.length < simpleEngineThreads && this.threads.every((t) => t.ready);
    if (!idleReady && room && Date.now() >= this.startAfter) this.start();
    return ready.reduce<EngineThread | null>((best, t) => (best === null || t.inFlight < best.inFlight ? t : best), null);
  }

  private start(): void {
    const entry = path.join(__dirname, `simple-scrape-thread${path.extname(__filename)}`);
    const worker = startSourceThread(entry, { role: 'simple-scrape-thread', config: this.config } satisfies ThreadSettings);
    const thread: EngineThread = { worker, ready: false, inFlight: 0, pending: new Map(), idleTimer: null };
    this.threads.push(thread);
    worker.unref();
    worker.on('message', (reply: ThreadReply) => this.settle(thread, reply));
    worker.on('error', (error) => this.lose(thread, `an engine thread failed: ${error.message}`));
    worker.on('exit', (code) => this.lose(thread, `an engine thread exited (code ${code})`));
  }

  private onThread(thread: EngineThread, request: ScrapeRequest, options: SimpleScrapeOptions): Promise<Outcome> {
    const id = this.nextId++;
    if (thread.idleTimer) [thread.idleTimer] = [null, clearTimeout(thread.idleTimer)];
    thread.inFlight += 1;
    // A thread keeps the process alive only while it owes an answer.
    if (thread.inFlight === 1) thread.worker.ref();
    return new Promise<Outcome>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      try {
        thread.worker.postMessage({ id, request, options } satisfies ThreadRequest);
      } catch (error) {
        // Not sent (a value that cannot be cloned): the thread owes nothing for it.
        thread.pending.delete(id);
        this.done(thread);
        reject(error);
      }
    });
  }

  private settle(thread: EngineThread, reply: ThreadReply): void {
    if ('ready' in reply) {
      thread.ready = true;
      this.idleFrom(thread);
      return;
    }
    const waiting = thread.pending.get(reply.id);
    if (!waiting) return;
    thread.pending.delete(reply.id);
    this.done(thread);
    if ('value' in reply) waiting.resolve(reply.value);
    else if (isSerializedAppError(reply.error)) waiting.reject(new RemoteAppError(reply.error));
    else waiting.reject(new Error(reply.error.message));
  }

  private done(thread: EngineThread): void {
    thread.inFlight -= 1;
    if (thread.inFlight === 0) {
      thread.worker.unref();
      this.idleFrom(thread);
    }
  }

  /** Ends a thread left without work for the idle interval (0: kept). */
  private idleFrom(thread: EngineThread): void {
    const idleMs = this.config.memoryReclaimIdleMs;
    if (idleMs === 0) return;
    thread.idleTimer = setTimeout(() => {
      const at = this.threads.indexOf(thread);
      if (at >= 0 && thread.inFlight === 0) void this.stop(this.threads.splice(at, 1)[0]);
    }, idleMs);
    thread.idleTimer.unref();
  }

  private async stop(thread: EngineThread): Promise<void> {
    if (thread.idleTimer) clearTimeout(thread.idleTimer);
    thread.worker.removeAllListeners('exit');
    this.lose(thread, 'the engine thread was stopped', { quiet: true });
    await thread.worker.terminate();
  }

  private lose(thread: EngineThread, why: string, { quiet = false } = {}): void {
    const at = this.threads.indexOf(thread);
    // Heard already (a failing thread reports an 'error' and then its 'exit'), and owing nothing.
    if (at < 0 && thread.pending.size === 0) return;
    if (at >= 0) this.threads.splice(at, 1);
    // A thread that could not load would fail the same way at once: scrapes stay on the event loop a while.
    if (!thread.ready && !quiet) this.startAfter = Date.now() + START_AGAIN_AFTER_FAILURE_MS;
    if (thread.pending.size > 0) this.logger.warn(`${why}; ${thread.pending.size} scrape(s) in it fail with transport.worker_lost`);
    else if (!quiet) this.logger.warn(why);
    for (const [, waiting] of thread.pending)
      waiting.reject(new WorkerLostError(`${why}; the scrape was not finished and nothing was charged`));
    thread.pending.clear();
  }
}
