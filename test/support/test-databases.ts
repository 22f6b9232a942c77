import { applyMigrations, type DatabaseConnection, openDatabase } from '@lib/persistence';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgresAvailable } from './infrastructure';
import { createTestDatabase } from './postgres-database';

export type DatabaseBackend = 'embedded' | 'postgres';

/**
 * The databases a store is tested on: the embedded PGlite always, Postgres where it runs (only
 * there do parallel transactions really race: PGlite has one connection). For `describe.each`.
 */
export const DATABASE_BACKENDS: DatabaseBackend[] = ['embedded', ...(postgresAvailable() ? (['postgres'] as const) : [])];

export interface TestDatabaseConnection {
  db: DatabaseConnection;
  /** Releases the connection and removes the database (its directory, or the Postgres database). */
  close(): Promise<void>;
}

/** A fresh database of the backend with every migration applied, for one test file. */
export async function openTestDatabase(backend: DatabaseBackend, label: string): Promise<TestDatabaseConnection> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `scrape-${label}-`));
  const postgres = backend === 'postgres' ? await createTestDatabase(label) : null;
  const db = await openDatabase({ databaseUrl: postgres?.url ?? null, dataDir: dir });
  await applyMigrations(db.sql);
  return {
    db,
    async close() {
      await db.release();
      await postgres?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
