import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import type { ScrapesInFlightEvent } from '@lib/contracts';
import { WorkerLostError } from '@lib/errors';
import { Inject, Injectable } from '@nestjs/common';

interface Watched {
  startedAt: number;
  lastNamedAt: number | null;
}

const CHECK_EVERY_MS = 250;

/**
 * Knows, for each sync request this gateway is waiting on, when an engine last named it
 * (scrape-engine's in-flight beat, SUBJECTS.scrape.inFlight). A request named once and then not
 * for `engineSilenceMs` has lost its engine; one never named in `engineAckTimeoutMs` was never
 * taken (sent into a replica that died before it read it). Events name every replica's requests,
 * so only the ones this gateway watches are kept.
 */
@Injectable()
export class EngineWatch {
  private readonly watched = new Map<string, Watched>();

  constructor(@Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {}

  apply(event: ScrapesInFlightEvent): void {
    const now = Date.now();
    for (const id of event.request_ids) {
      const entry = this.watched.get(id);
      if (entry) entry.lastNamedAt = now;
    }
  }

  /**
   * Calls `onLost` (once) when the request's engine is lost; `acknowledged` says whether any engine
   * ever took it. Returns the function that ends the watch.
   */
  watch(requestId: string, onLost: (error: WorkerLostError, acknowledged: boolean) => void): () => void {
    const entry: Watched = { startedAt: Date.now(), lastNamedAt: null };
    this.watched.set(requestId, entry);
    const timer = setInterval(() => {
      const now = Date.now();
      if (entry.lastNamedAt !== null && now - entry.lastNamedAt > this.config.engineSilenceMs) {
        stop();
        onLost(
          new WorkerLostError(
            `The scrape engine working on this request stopped answering (last heard ${((now - entry.lastNamedAt) / 1000).toFixed(1)} s ago). Nothing was charged; send the request again.`,
          ),
          true,
        );
      } else if (entry.lastNamedAt === null && now - entry.startedAt > this.config.engineAckTimeoutMs) {
        stop();
        onLost(
          new WorkerLostError(
            `No scrape engine took this request within ${this.config.engineAckTimeoutMs / 1000} s. Nothing was charged; send the request again.`,
          ),
          false,
        );
      }
    }, CHECK_EVERY_MS);
    timer.unref();
    const stop = () => {
      clearInterval(timer);
      if (this.watched.get(requestId) === entry) this.watched.delete(requestId);
    };
    return stop;
  }
}
