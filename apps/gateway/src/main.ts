import 'reflect-metadata';
import { loadPlatformConfigOrExit } from '@lib/config';
import { createRootLogger } from '@lib/logging';
import { keepServingOnUnhandledRejection, onShutdownSignal } from '@lib/runtime';
import { IdleMemoryReclaimer } from '@lib/threads';
import { startGateway } from './bootstrap-gateway';
import { startBanner } from './start-banner';

/** `npm run start:service -- gateway`: the gateway alone, against NATS_URL and DATABASE_URL. */
async function main(): Promise<void> {
  const config = loadPlatformConfigOrExit();
  if (!config.natsUrl || !config.databaseUrl) {
    process.stderr.write('invalid configuration: gateway alone needs NATS_URL and DATABASE_URL (use npm start for the embedded runtime)\n');
    process.exit(1);
  }
  const gateway = await startGateway(config);
  process.stdout.write(startBanner(gateway.url, config, gateway.bootstrapTokens));
  const logger = createRootLogger('gateway', config.logLevel);
  keepServingOnUnhandledRejection((message) => logger.error(message));
  new IdleMemoryReclaimer(config.memoryReclaimIdleMs).start();
  onShutdownSignal(
    () => gateway.app.close(),
    (message) => logger.info(message),
    config.drainDelayMs,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
