import net from 'node:net';

/** Where the machine's Postgres and NATS are expected (overridable for other set-ups). */
export const TEST_POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
/**
 * The NATS this test file's platforms talk over: TEST_NATS_URL when set (everything shares it), else
 * the NATS server global-setup started for this jest worker (TEST_NATS_URLS, one per worker), so
 * files running side by side in two workers never answer each other's requests; else the machine's.
 */
export const TEST_NATS_URL =
  process.env.TEST_NATS_URL ??
  process.env.TEST_NATS_URLS?.split(',')[(Number(process.env.JEST_WORKER_ID ?? 1) - 1) % process.env.TEST_NATS_URLS.split(',').length] ??
  'nats://127.0.0.1:4222';

export function canConnect(url: string, timeoutMs = 1500): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Set by global-setup: whether the distributed half (Postgres + NATS) can run. */
export function distributedInfrastructureAvailable(): boolean {
  return process.env.SCRAPE_TEST_DISTRIBUTED === 'available';
}

export function postgresAvailable(): boolean {
  return process.env.SCRAPE_TEST_POSTGRES === 'available';
}

/** The key ring every distributed test platform runs with (required with DATABASE_URL). */
export const TEST_WEBHOOK_SECRET_KEYS = `test:${Buffer.alloc(32, 7).toString('base64')}`;
