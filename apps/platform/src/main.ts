import 'reflect-metadata';
import { loadPlatformConfigOrExit } from '@lib/config';
import { createRootLogger } from '@lib/logging';
import { keepServingOnUnhandledRejection, onShutdownSignal } from '@lib/runtime';
import { IdleMemoryReclaimer } from '@lib/threads';
import { startBanner } from '../../gateway/src/start-banner';
import { startPlatform } from './platform';

/** `npm start`: the whole platform in one process. */
async function main(): Promise<void> {
  const config = loadPlatformConfigOrExit();
  const platform = await startPlatform(config);
  process.stdout.write(startBanner(platform.url, config, platform.bootstrapTokens));
  const logger = createRootLogger('platform', config.logLevel);
  keepServingOnUnhandledRejection((message) => logger.error(message));
  new IdleMemoryReclaimer(config.memoryReclaimIdleMs).start();
  onShutdownSignal(
    () => platform.stop(),
    (message) => logger.info(message),
    config.drainDelayMs,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
