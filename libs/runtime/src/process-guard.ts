/**
 * What a context process does with a promise rejection nobody handled: log it and keep serving.
 * Node's default is to exit, which turned one transient fault (a dropped connection surfacing in a
 * fire-and-forget promise during a Postgres or NATS restart) into an outage of the whole context.
 * An uncaught *exception* still ends the process: its state can no longer be trusted, and the
 * supervisor (Kubernetes, `npm run stack`) starts it again.
 */
export function keepServingOnUnhandledRejection(log: (message: string) => void): void {
  process.on('unhandledRejection', (reason: unknown) => {
    log(`unhandled rejection (kept serving): ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });
}
