import net from 'node:net';

/** Where the machine's Postgres and NATS are expected (overridable for other set-ups). */
export const TEST_POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

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
