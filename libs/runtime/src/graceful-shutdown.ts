/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits. A second signal exits at once, so an operator
 * is never stuck behind a hung shutdown.
 */
export function onShutdownSignal(stop: (signal: string) => Promise<void>, log: (message: string) => void = () => undefined): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    log(`received ${signal}, shutting down`);
    stop(signal).then(
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
