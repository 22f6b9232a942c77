import { canConnect, TEST_POSTGRES_ADMIN_URL } from './infrastructure';
import { natsServerAvailable, startPrivateNats } from './private-servers';

/**
 * Probes the machine's Postgres once and starts a NATS server of this run's own for each jest worker (see
 * private-servers.ts: a shared NATS lets concurrent test runs answer each other's requests).
 * Without the nats-server binary, the machine's NATS at TEST_NATS_URL is used.
 * Missing infrastructure skips only the tests that need it, loudly; under CI=true it fails the
 * run instead, so CI can never pass on half a suite.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  if (!process.env.TEST_NATS_URL && natsServerAvailable()) {
    // One per jest worker (JEST_WORKER_ID picks it, infrastructure.ts): NATS subjects are the one
    // thing test files cannot make their own, and two platforms on one NATS serve each other.
    const servers = await Promise.all(
      Array.from({ length: Math.max(1, globalConfig.maxWorkers) }, (_, i) => startPrivateNats(`worker-${i + 1}-nats`)),
    );
    process.env.TEST_NATS_URLS = servers.map((s) => s.url).join(',');
    (globalThis as { __privateNats?: typeof servers }).__privateNats = servers;
  }
  const natsUrl = process.env.TEST_NATS_URL ?? process.env.TEST_NATS_URLS?.split(',')[0] ?? 'nats://127.0.0.1:4222';
  const [postgres, nats] = await Promise.all([canConnect(TEST_POSTGRES_ADMIN_URL), canConnect(natsUrl)]);
  process.env.SCRAPE_TEST_POSTGRES = postgres ? 'available' : 'missing';
  process.env.SCRAPE_TEST_DISTRIBUTED = postgres && nats ? 'available' : 'missing';
  if (postgres && nats) return;
  const missing = [!postgres && `Postgres at ${TEST_POSTGRES_ADMIN_URL}`, !nats && `NATS at ${natsUrl}`].filter(Boolean).join(' and ');
  const banner = `\n${'!'.repeat(78)}\n!! ${missing} unreachable: the distributed-runtime tests are SKIPPED.\n!! Start them (see docs/contributing.md) to run the whole suite.\n${'!'.repeat(78)}\n`;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${missing} unreachable: refusing to skip the distributed tests`);
  process.stderr.write(banner);
}
