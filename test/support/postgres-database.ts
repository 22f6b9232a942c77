import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { TEST_POSTGRES_ADMIN_URL } from './infrastructure';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty Postgres database for one test file, dropped afterwards. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `scrape_test_${label}_${randomBytes(4).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = new Client({ connectionString: TEST_POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(TEST_POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: TEST_POSTGRES_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}
