import { SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { PeriodicTask } from '@lib/runtime';
import { WorkerLostError } from '@lib/errors';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';

/** How often a replica names its in-flight sync requests (gateways allow a few missed beats). */
export const IN_FLIGHT_INTERVAL_MS = 1000;

/**
 * How long a finished request is remembered, and how many finished answers are kept for a request
 * delivered again: a gateway resends a request no engine named within ENGINE_ACK_TIMEOUT_MS (10 s),
 * which during a broker outage can be one this replica did take and run. Ids are a few bytes; an
 * answer can be 512 KB inline, so only the latest ones are kept whole.
 */
const REMEMBERED_MS = 10 * 60_000;
const REMEMBERED_MAX = 50_000;
const ANSWERS_KEPT = 128;

interface Run {
  /** The answer while it is kept; null once dropped (the id is still remembered). */
  answer: Promise<unknown> | null;
  finishedAt: number | null;
}

/**
 * The sync requests this replica is working on, named to every gateway each second.
 *
 * Why: a request/reply call cannot tell a slow scrape from a dead engine, and a sync scrape may
 * legitimately take minutes (browser queue, page load, actions). A gateway that stops hearing a
 * request named knows its engine is gone (kill -9, OOM, a lost node) within seconds, answers the
 * client 503 and releases the credit hold, instead of waiting out the call's timeout.
 * Only over NATS: in the embedded runtime the engine cannot die without the gateway.
 */
@Injectable()
export class InFlightScrapes implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly workerId = `scrape-engine-${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly requestIds = new Map<string, number>();
  /** By call id (EngineCommand.call_id). */
  private readonly runs = new Map<string, Run>();
  /** Call ids whose answer is kept, oldest finish first. */
  private readonly answered: string[] = [];
  private readonly logger = new Logger('InFlightScrapes');
  private readonly beat = new PeriodicTask('InFlightScrapes', IN_FLIGHT_INTERVAL_MS, async () => this.announce());

  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  onApplicationBootstrap(): void {
    if (this.bus.kind === 'nats') this.beat.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beat.stop();
  }

  /**
   * Runs `work` once per call id, with the request id named in every beat meanwhile. A call delivered again —
   * while its run is under way or after it — is not run again (its target is not fetched twice):
   * it gets the same answer while that is kept, else WorkerLostError (503, nothing charged: the
   * answer of the run that did happen never reached a gateway, so nobody charged it).
   */
  async runOnce<T>(requestId: string, callId: string | undefined, work: () => Promise<T>): Promise<T> {
    // A caller that names no call (an older gateway) gets no de-duplication.
    if (!callId) return this.track(requestId, work);
    this.forgetOld();
    const known = this.runs.get(callId);
    if (known) {
      this.logger.warn(
        `request ${requestId} (call ${callId}) delivered again; its run ${known.finishedAt === null ? 'is under way' : 'is done'}: not run twice`,
      );
      if (known.answer) return known.answer as Promise<T>;
      throw new WorkerLostError(
        'This request was already run by a scrape engine, but its answer was lost in transit. Nothing was charged; send the request again.',
      );
    }
    const run: Run = { answer: null, finishedAt: null };
    const answer = this.track(requestId, work);
    run.answer = answer;
    this.runs.set(callId, run);
    const finished = () => {
      run.finishedAt = Date.now();
      this.keepLatestAnswers(callId);
    };
    answer.then(finished, finished);
    return answer;
  }

  /** Finished runs beyond ANSWERS_KEPT drop their answer, oldest finish first. */
  private keepLatestAnswers(callId: string): void {
    this.answered.push(callId);
    while (this.answered.length > ANSWERS_KEPT) {
      const run = this.runs.get(this.answered.shift()!);
      if (run) run.answer = null;
    }
  }

  /** Forgets ids finished over REMEMBERED_MS ago, and the oldest past REMEMBERED_MAX (in start order). */
  private forgetOld(): void {
    const cutoff = Date.now() - REMEMBERED_MS;
    for (const [id, run] of this.runs) {
      const overfull = this.runs.size > REMEMBERED_MAX;
      if (!overfull && (run.finishedAt === null || run.finishedAt > cutoff)) break;
      this.runs.delete(id);
    }
  }

  /** Runs `work` with `requestId` named in every beat meanwhile (named at once, not a second later). */
  private async track<T>(requestId: string, work: () => Promise<T>): Promise<T> {
    this.requestIds.set(requestId, (this.requestIds.get(requestId) ?? 0) + 1);
    if (this.bus.kind === 'nats') this.announce();
    try {
      return await work();
    } finally {
      const left = (this.requestIds.get(requestId) ?? 1) - 1;
      if (left > 0) this.requestIds.set(requestId, left);
      else this.requestIds.delete(requestId);
    }
  }

  private announce(): void {
    if (this.requestIds.size === 0) return;
    this.bus.emit(SUBJECTS.scrape.inFlight, {
      worker_id: this.workerId,
      request_ids: [...this.requestIds.keys()],
      interval_ms: IN_FLIGHT_INTERVAL_MS,
    });
  }
}
