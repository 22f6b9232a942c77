import { OPS_SUBJECTS } from '@lib/contracts';
import { OpsEventPublisher } from '@lib/messaging';
import { platformMetrics } from '@lib/metrics';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { type BrowserExit, BrowserPool, type BrowserPoolObserver } from './browser-pool';

/**
 * The pool's browser ends, told to ops tooling (events) and counted (metrics): a crash as
 * browser-crashed, a close of the pool's own for a page budget, a hang or idleness as
 * browser-recycled. A close at shutdown is neither: the service's own service-stopping says it.
 */
export class BrowserPoolTelemetry implements BrowserPoolObserver {
  constructor(private readonly ops: OpsEventPublisher) {}

  exited(exit: BrowserExit): void {
    const kind = exit.kind;
    if (exit.cause === 'crash') {
      platformMetrics.browserCrashes.inc({ kind });
      const reason = exit.whileStarting ? `while starting: ${exit.detail}` : exit.detail;
      this.ops.publish(OPS_SUBJECTS.browserCrashed, { browser_kind: kind, pages_in_flight: exit.pagesInFlight, reason });
    } else if (exit.cause !== 'shutdown') {
      platformMetrics.browserRecycles.inc({ kind, reason: exit.cause });
      this.ops.publish(OPS_SUBJECTS.browserRecycled, { browser_kind: kind, reason: exit.cause, pages_served: exit.pagesServed });
    }
  }
}

/** Reads the pool's size, pages in flight and queue into the gauges at each scrape of /metrics. */
@Injectable()
export class BrowserPoolGauges implements OnModuleInit, OnApplicationShutdown {
  private remove: (() => void) | null = null;

  constructor(@Inject(BrowserPool) private readonly pool: BrowserPool) {}

  onModuleInit(): void {
    this.remove = platformMetrics.addSampler('browser-pool', async () => {
      const stats = this.pool.stats();
      for (const kind of ['light', 'heavy'] as const)
        platformMetrics.browsers.set({ kind }, stats.browsers.filter((b) => b.kind === kind).length);
      platformMetrics.browserPagesInFlight.set(stats.browsers.reduce((sum, b) => sum + b.active, 0));
      platformMetrics.browserQueue.set(stats.queued);
    });
  }

  onApplicationShutdown(): void {
    this.remove?.();
  }
}
