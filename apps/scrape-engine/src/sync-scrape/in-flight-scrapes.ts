import { SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';

/** How often a replica names its in-flight sync requests (gateways allow a few missed beats). */
export const IN_FLIGHT_INTERVAL_MS = 1000;

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
  private readonly beat = new PeriodicTask('InFlightScrapes', IN_FLIGHT_INTERVAL_MS, async () => this.announce());

  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  onApplicationBootstrap(): void {
    if (this.bus.kind === 'nats') this.beat.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beat.stop();
  }

  /** Runs `work` with `requestId` named in every beat meanwhile (named at once, not a second later). */
  async track<T>(requestId: string, work: () => Promise<T>): Promise<T> {
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
