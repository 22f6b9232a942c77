import { OPS_SUBJECTS } from '@lib/contracts';
import { OpsEventPublisher } from '@lib/messaging';
import { platformMetrics } from '@lib/metrics';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { BrowserKind } from './browser-launcher';
import { BrowserPool, type BrowserPoolObserver } from './browser-pool';

/** The pool's crashes and recycles, told to ops tooling (events) and counted (metrics). */
export class BrowserPoolTelemetry implements BrowserPoolObserver {
  constructor(private readonly ops: OpsEventPublisher) {}

  crashed(kind: BrowserKind, pagesInFlight: number, reason: string): void {
    platformMetrics.browserCrashes.inc({ kind });
    this.ops.publish(OPS_SUBJECTS.browserCrashed, { browser_kind: kind, pages_in_flight: pagesInFlight, reason });
  }

  recycled(kind: BrowserKind, reason: 'page_budget' | 'hung' | 'idle', pagesServed: number): void {
    platformMetrics.browserRecycles.inc({ kind, reason });
    this.ops.publish(OPS_SUBJECTS.browserRecycled, { browser_kind: kind, reason, pages_served: pagesServed });
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
