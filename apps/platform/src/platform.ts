// The composition root: the only place allowed to import other apps (see
// docs/decisions/0002-composition-root.md and .dependency-cruiser.js). It runs every bounded
// context in one process: over the in-process bus by default, over NATS when NATS_URL is set.
import { BatchOrchestratorModule } from '../../batch-orchestrator/src/batch-orchestrator.module';
import { BillingMeterModule } from '../../billing-meter/src/billing-meter.module';
import { type RunningGateway, startGateway } from '../../gateway/src/bootstrap-gateway';
import type { BootstrapToken } from '../../gateway/src/clients/client-bootstrap';
import { ProxyApprovalsModule } from '../../proxy-approvals/src/proxy-approvals.module';
import { ResultStoreModule } from '../../result-store/src/result-store.module';
import { ScrapeEngineModule } from '../../scrape-engine/src/scrape-engine.module';
import { SiteDiscoveryModule } from '../../site-discovery/src/site-discovery.module';
import { ViabilityAnalyzerModule } from '../../viability-analyzer/src/viability-analyzer.module';
import { WebhookSenderModule } from '../../webhook-sender/src/webhook-sender.module';
import type { PlatformConfig } from '@lib/config';
import type { MessageContext } from '@lib/contracts';
import { InProcessBus } from '@lib/messaging';
import { openMigratedDatabase } from '@lib/persistence';
import { bootstrapMessageContext, type Clock, withPlatformModules } from '@lib/runtime';
import type { INestMicroservice, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

export const CONTEXT_MODULES: Record<MessageContext, Type<unknown>> = {
  'scrape-engine': ScrapeEngineModule,
  'batch-orchestrator': BatchOrchestratorModule,
  'result-store': ResultStoreModule,
  'webhook-sender': WebhookSenderModule,
  'billing-meter': BillingMeterModule,
  'proxy-approvals': ProxyApprovalsModule,
  'viability-analyzer': ViabilityAnalyzerModule,
  'site-discovery': SiteDiscoveryModule,
};

export interface RunningPlatform {
  url: string;
  /** The gateway's Nest application (tests reach its providers through it). */
  gateway: NestFastifyApplication;
  routes: RunningGateway['routes'];
  bootstrapTokens: BootstrapToken[];
  stop(): Promise<void>;
}

/** `clock` replaces the system clock in every context (tests move it to cross retention windows). */
export async function startPlatform(config: PlatformConfig, options: { clock?: Clock } = {}): Promise<RunningPlatform> {
  const bus = config.natsUrl ? undefined : new InProcessBus();
  // Migrate once up front (each context would also do it; this keeps start-up logs quiet, and on a
  // first start the embedded database is opened afresh after migrating, holding its reference
  // while the contexts open theirs).
  const { db } = await openMigratedDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    memoryReclaimIdleMs: config.memoryReclaimIdleMs,
  });
  const contexts: INestMicroservice[] = [];
  let engine: INestMicroservice | null = null;
  try {
    for (const [name, module] of Object.entries(CONTEXT_MODULES) as Array<[MessageContext, Type<unknown>]>) {
      const context = await bootstrapMessageContext(name, withPlatformModules(name, module, config, bus, options.clock), config, bus);
      if (name === 'scrape-engine') engine = context;
      else contexts.push(context);
    }
    const gateway = await startGateway(config, bus, options.clock);
    let stopped: Promise<void> | null = null;
    return {
      url: gateway.url,
      gateway: gateway.app,
      routes: gateway.routes,
      bootstrapTokens: gateway.bootstrapTokens,
      stop() {
        // HTTP first (in-flight requests finish, new ones are refused), then the contexts.
        stopped ??= (async () => {
          await gateway.app.close();
          // Workers first, while batch-orchestrator can still take the outcomes of the jobs in hand.
          await engine?.close();
          for (const context of contexts.reverse()) await context.close();
          await db.release();
        })();
        return stopped;
      },
    };
  } catch (error) {
    for (const context of [...(engine ? [engine] : []), ...contexts]) await context.close().catch(() => undefined);
    await db.release();
    throw error;
  }
}
