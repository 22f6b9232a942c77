import { startSourceThread } from '@lib/threads';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { DocumentKind } from './document-kinds';
import { type DocumentAsk, DocumentUnreadableError, type ReadDocument } from './document-reading';
export type { DocumentAsk } from './document-reading';
import type { DocumentTask, DocumentTaskReply } from './document-thread';

/** Documents read side by side; more wait their turn (their time budget starts when they are read). */
export const DOCUMENT_THREADS = 2;
/** A document thread's heap: past it the thread dies and its document is refused, the process untouched. */
export const DOCUMENT_THREAD_HEAP_MB = 1024;
/** Beyond a document's own budget (its reader stops between pages), how long before its thread is ended. */
const HARD_STOP_GRACE_MS = 5_000;

interface Reading {
  kind: DocumentKind;
  bytes: Buffer;
  ask: DocumentAsk;
  resolve: (value: ReadDocument) => void;
  reject: (error: unknown) => void;
}

/**
 * Documents are read on threads of their own, never on the thread that asked (decision 0039): a
 * 500-page PDF keeps no event loop and no engine thread from its other scrapes, a document that
 * takes more memory than DOCUMENT_THREAD_HEAP_MB ends its thread rather than the process, and one
 * stuck inside a page (where the reader cannot stop between pages) is ended HARD_STOP_GRACE_MS past
 * its budget. Both are answered as `document_too_large`. One document per thread at a time, so
 * ending a thread loses only its own; a thread ends when no document has come for a while.
 */
export class DocumentThreads {
  private readonly idle: Worker[] = [];
  private busy = 0;
  private readonly waiting: Reading[] = [];
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  /** The exit listener of each idle thread, taken off when it is handed a document. */
  private readonly resting = new Map<Worker, () => void>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly idleMs = 30_000,
    private readonly limits = { heapMb: DOCUMENT_THREAD_HEAP_MB, graceMs: HARD_STOP_GRACE_MS },
  ) {}

  read(kind: DocumentKind, bytes: Buffer, ask: DocumentAsk): Promise<ReadDocument> {
    if (this.closed) return Promise.reject(new Error('document threads are closed'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ kind, bytes, ask, resolve, reject });
      this.pump();
    });
  }

  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    for (const reading of this.waiting.splice(0)) reading.reject(new Error('document threads are closed'));
    await Promise.all(this.idle.splice(0).map((worker) => worker.terminate()));
  }

  private pump(): void {
    while (this.waiting.length > 0 && (this.idle.length > 0 || this.busy < DOCUMENT_THREADS)) {
      const reading = this.waiting.shift()!;
      const worker = this.idle.pop() ?? this.start();
      this.busy += 1;
      void this.run(worker, reading).finally(() => {
        this.busy -= 1;
        this.pump();
      });
    }
  }

  private start(): Worker {
    const entry = path.join(__dirname, `document-thread${path.extname(__filename)}`);
    const worker = startSourceThread(
      entry,
      { role: 'document-thread' },
      { resourceLimits: { maxOldGenerationSizeMb: this.limits.heapMb } },
    );
    worker.unref();
    return worker;
  }

  private run(worker: Worker, reading: Reading): Promise<void> {
    const id = this.nextId++;
    clearTimeout(this.idleTimers.get(worker));
    this.idleTimers.delete(worker);
    const rested = this.resting.get(worker);
    if (rested) worker.off('exit', rested);
    this.resting.delete(worker);
    worker.ref();
    return new Promise<void>((done) => {
      let settled = false;
      const finish = (keep: boolean, outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(hardStop);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        worker.unref();
        if (keep && !this.closed) this.rest(worker);
        else void worker.terminate();
        outcome();
        done();
      };
      const onMessage = (reply: DocumentTaskReply) => {
        if (reply.id !== id) return;
        if ('value' in reply) finish(true, () => reading.resolve(reply.value));
        else if ('refused' in reply)
          finish(true, () => reading.reject(new DocumentUnreadableError(reply.refused.reason, reply.refused.message)));
        else
          finish(true, () =>
            reading.reject(new DocumentUnreadableError('document_corrupt', `The ${reading.kind} file could not be read: ${reply.error}`)),
          );
      };
      const onError = (error: Error) =>
        finish(false, () =>
          reading.reject(
            (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new DocumentUnreadableError(
                  'document_too_large',
                  `The ${reading.kind} file needs more than the ${this.limits.heapMb} MB a document may use here.`,
                )
              : new DocumentUnreadableError('document_corrupt', `The ${reading.kind} file could not be read: ${error.message}`),
          ),
        );
      const onExit = () =>
        finish(false, () =>
          reading.reject(
            new DocumentUnreadableError('document_corrupt', `The ${reading.kind} file could not be read: its reader stopped.`),
          ),
        );
      const hardStop = setTimeout(
        () =>
          finish(false, () =>
            reading.reject(
              new DocumentUnreadableError(
                'document_too_large',
                `The ${reading.kind} file was not read within its ${reading.ask.budgetMs / 1000} s budget.`,
              ),
            ),
          ),
        reading.ask.budgetMs + this.limits.graceMs,
      );
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      const task: DocumentTask = {
        id,
        kind: reading.kind,
        bytes: reading.bytes,
        ranges: reading.ask.ranges,
        max: reading.ask.max,
        budgetMs: reading.ask.budgetMs,
        ocr: reading.ask.ocr,
      };
      worker.postMessage(task);
    });
  }

  /** An idle thread waits for the next document, and ends after idleMs without one; one that dies while idle is forgotten, not handed the next. */
  private rest(worker: Worker): void {
    this.idle.push(worker);
    const forget = () => {
      clearTimeout(this.idleTimers.get(worker));
      this.idleTimers.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at !== -1) this.idle.splice(at, 1);
      this.resting.delete(worker);
      worker.off('exit', forget);
    };
    worker.once('exit', forget);
    this.idleTimers.set(
      worker,
      setTimeout(() => {
        forget();
        void worker.terminate();
      }, this.idleMs).unref(),
    );
    this.resting.set(worker, forget);
  }
}
