import { MessageBus } from '@lib/messaging';
import { platformMetrics } from '@lib/metrics';
import { DATABASE, DatabaseConnection, pingDatabase } from '@lib/persistence';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { timedCheck } from './context-health';

/**
 * dependency_up / dependency_ping_seconds for the database and the transport, measured when
 * Prometheus scrapes (one reading per process, whichever of its contexts registered last).
 */
@Injectable()
export class DependencyGauges implements OnModuleInit, OnApplicationShutdown {
  private remove: (() => void) | null = null;

  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  onModuleInit(): void {
    this.remove = platformMetrics.addSampler('dependencies', async () => {
      const [database, transport] = await Promise.all([timedCheck(() => pingDatabase(this.db)), timedCheck(() => this.bus.ping())]);
      const transportName = this.bus.kind === 'nats' ? 'nats' : 'in_process_bus';
      for (const [dependency, check] of [
        ['database', database],
        [transportName, transport],
      ] as const) {
        platformMetrics.dependencyUp.set({ dependency }, check.status === 'ok' ? 1 : 0);
        platformMetrics.dependencyLatency.set({ dependency }, check.latency_ms / 1000);
      }
    });
  }

  onApplicationShutdown(): void {
    this.remove?.();
  }
}
