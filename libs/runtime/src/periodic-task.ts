import { Logger } from '@nestjs/common';

/**
 * Work a context repeats on a schedule (sweeps, pruning): never two passes at once, a failed pass
 * logged and retried at the next tick, and a stop that waits for the pass in progress.
 */
export class PeriodicTask<T> {
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<T> | null = null;

  constructor(
    name: string,
    private readonly intervalMs: number,
    private readonly pass: () => Promise<T>,
  ) {
    this.logger = new Logger(name);
  }

  start(): void {
    this.timer ??= setInterval(
      () =>
        void this.runNow().catch((error: unknown) =>
          this.logger.warn(`pass failed: ${error instanceof Error ? error.message : String(error)}`),
        ),
      this.intervalMs,
    );
    this.timer.unref();
  }

  /** One pass now; a caller arriving during a pass shares it. */
  runNow(): Promise<T> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
