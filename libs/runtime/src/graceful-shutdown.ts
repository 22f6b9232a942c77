import { setTimeout as sleep } from 'node:timers/promises';
import { drainState } from './drain-state';

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits. First the process drains: readiness turns
 * false at once (drainState) and it keeps serving for `drainDelayMs`, so the load balancer stops
 * sending it work before it stops taking it. A second signal exits at once, so an operator is
 * never stuck behind a hung shutdown.
 */
export function onShutdownSignal(
  stop: (signal: string) => Promise<void>,
  log: (message: string) => void = () => undefined,
  drainDelayMs = 0,
): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    drainState.begin();
    log(
      drainDelayMs > 0
        ? `received ${signal}: not ready; draining for ${drainDelayMs} ms, then shutting down`
        : `received ${signal}, shutting down`,
    );
    sleep(drainDelayMs)
      .then(() => stop(signal))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
