import { distributedInfrastructureAvailable, TEST_NATS_URL, TEST_WEBHOOK_SECRET_KEYS } from '../../support/infrastructure';
import { createTestDatabase, type TestDatabase } from '../../support/postgres-database';

/** The runtimes every HTTP-level behaviour is required in (Postgres + NATS only where reachable). */
export interface Runtime {
  name: string;
  mode: 'embedded' | 'distributed';
  transport: 'in-process' | 'nats';
  prepare(): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }>;
}

export function runtimesUnderTest(label: string): Runtime[] {
  const runtimes: Runtime[] = [
    {
      name: 'embedded (in-process transport, PGlite)',
      mode: 'embedded',
      transport: 'in-process',
      prepare: async () => ({ env: {}, cleanup: async () => undefined }),
    },
  ];
  if (distributedInfrastructureAvailable()) {
    runtimes.push({
      name: 'NATS + Postgres',
      mode: 'distributed',
      transport: 'nats',
      prepare: async () => {
        const database: TestDatabase = await createTestDatabase(label);
        return {
          env: { NATS_URL: TEST_NATS_URL, DATABASE_URL: database.url, WEBHOOK_SECRET_KEYS: TEST_WEBHOOK_SECRET_KEYS },
          cleanup: () => database.drop(),
        };
      },
    });
  }
  return runtimes;
}
