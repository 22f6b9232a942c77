import type { BoundedContext } from '@lib/contracts';
import { ConfigModule, loadPlatformConfigOrExit, PlatformConfig } from '@lib/config';
import { createRootLogger } from '@lib/logging';
import { InProcessBus, MessagingModule } from '@lib/messaging';
import { PersistenceModule } from '@lib/persistence';
import { DynamicModule, INestMicroservice, Module, Type } from '@nestjs/common';
import { bootstrapMessageContext } from './bootstrap-context';
import { Clock, CLOCK, systemClock } from './clock';
import { ContextHealthReporter } from './context-health';
import { DependencyGauges } from './dependency-gauges';
import { onShutdownSignal } from './graceful-shutdown';
import { startHealthProbeServer } from './health-probe.server';
import { IdleMemoryReclaimer } from '@lib/threads';
import { keepServingOnUnhandledRejection } from './process-guard';

/**
 * Wraps a context module with the process-level modules every context gets: the validated config,
 * the database, the message bus to other contexts and the clock. The context module itself stays
 * free of runtime wiring, so the same module runs alone or beside the others.
 */
export function withPlatformModules(
  serviceName: BoundedContext,
  contextModule: Type<unknown>,
  config: PlatformConfig,
  bus?: InProcessBus,
  clock: Clock = systemClock,
): Type<unknown> {
  @Module({
    imports: [
      ConfigModule.forRoot(config),
      PersistenceModule,
      MessagingModule.forContext(serviceName, bus),
      runtimeModuleWith(clock),
      contextModule,
    ],
  })
  class ContextRootModule {}
  return ContextRootModule;
}

@Module({})
class RuntimeModuleDefinition {}

/** Clock and health reporter, available to every context (global). Tests pass a clock they can move. */
function runtimeModuleWith(clock: Clock): DynamicModule {
  return {
    module: RuntimeModuleDefinition,
    global: true,
    providers: [{ provide: CLOCK, useValue: clock }, ContextHealthReporter, DependencyGauges],
    exports: [CLOCK, ContextHealthReporter],
  };
}

/** `npm run start:service -- <name>` for a message context: needs NATS_URL and DATABASE_URL. */
export async function runStandaloneContext(serviceName: BoundedContext, contextModule: Type<unknown>): Promise<INestMicroservice> {
  const config = loadPlatformConfigOrExit();
  const logger = createRootLogger(serviceName, config.logLevel);
  if (!config.natsUrl || !config.databaseUrl) {
    process.stderr.write(
      `invalid configuration: ${serviceName} alone needs NATS_URL and DATABASE_URL (use npm start for the embedded runtime)\n`,
    );
    process.exit(1);
  }
  const app = await bootstrapMessageContext(serviceName, withPlatformModules(serviceName, contextModule, config), config);
  const probe = config.healthPort
    ? await startHealthProbeServer(config.healthPort, () => app.get(ContextHealthReporter).report(serviceName), {
        metricsToken: config.metricsToken,
      })
    : null;
  logger.info({ transport: 'nats', health_port: config.healthPort }, `${serviceName} started`);
  keepServingOnUnhandledRejection((message) => logger.error(message));
  new IdleMemoryReclaimer(config.memoryReclaimIdleMs).start();
  onShutdownSignal(
    async () => {
      probe?.close();
      await app.close();
    },
    (m) => logger.info(m),
    config.drainDelayMs,
  );
  return app;
}
