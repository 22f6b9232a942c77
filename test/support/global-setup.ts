import { canConnect, TEST_NATS_URL, TEST_POSTGRES_ADMIN_URL } from './infrastructure';

/**
 * Probes the machine's Postgres and NATS once. Missing infrastructure skips only the tests that
 * need it, loudly; under CI=true it fails the run instead, so CI can never pass on half a suite.
 */
export default async function globalSetup(): Promise<void> {
  const [postgres, nats] = await Promise.all([canConnect(TEST_POSTGRES_ADMIN_URL), canConnect(TEST_NATS_URL)]);
  process.env.SCRAPE_TEST_POSTGRES = postgres ? 'available' : 'missing';
  process.env.SCRAPE_TEST_DISTRIBUTED = postgres && nats ? 'available' : 'missing';
  if (postgres && nats) return;
  const missing = [!postgres && `Postgres at ${TEST_POSTGRES_ADMIN_URL}`, !nats && `NATS at ${TEST_NATS_URL}`].filter(Boolean).join(' and ');
  const banner = `\n${'!'.repeat(78)}\n!! ${missing} unreachable: the distributed-runtime tests are SKIPPED.\n!! Start them (see README, "Running the tests") to run the whole suite.\n${'!'.repeat(78)}\n`;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${missing} unreachable: refusing to skip the distributed tests`);
  process.stderr.write(banner);
}
