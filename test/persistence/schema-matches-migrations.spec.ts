import {
  applyMigrations,
  type DatabaseConnection,
  MigrationChecksumError,
  openDatabase,
  openMigratedDatabase,
  pingDatabase,
  poolSqlExecutor,
  readMigrations,
} from '@lib/persistence';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgresAvailable } from '../support/infrastructure';
import { createTestDatabase, type TestDatabase } from '../support/postgres-database';
import { actualShapeOfDatabase, expectedShapeFromPrismaSchema } from '../support/schema-shape';

/**
 * prisma migrate cannot run here (no schema-engine binary), so the project applies its own SQL.
 * These tests prove that SQL yields exactly the schema in prisma/schema.prisma — tables, column
 * types, nullability, defaults, keys, indexes and foreign keys, compared in both directions — on
 * the embedded database and on Postgres, and that applying is idempotent and safe in parallel.
 */
describe('SQL migrations', () => {
  describe('on embedded PGlite', () => {
    let dir: string;
    let db: DatabaseConnection;

    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-migrations-'));
      db = await openDatabase({ databaseUrl: null, dataDir: dir });
    });
    afterAll(async () => {
      await db.release();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('produce exactly the Prisma schema', async () => {
      expect(await applyMigrations(db.sql)).toEqual(readMigrations().map((m) => m.name));
      expect(await actualShapeOfDatabase(db.sql)).toEqual(await expectedShapeFromPrismaSchema());
    });

    it('apply nothing the second time', async () => {
      expect(await applyMigrations(db.sql)).toEqual([]);
    });

    it('refuse to run when an applied migration was edited', async () => {
      const edited = readMigrations().map((m, i) => (i === 0 ? { ...m, checksum: 'f'.repeat(64) } : m));
      await expect(applyMigrations(db.sql, edited)).rejects.toBeInstanceOf(MigrationChecksumError);
    });
  });

  describe('opened migrated (what every context and npm start do)', () => {
    let dir: string;

    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-migrated-'));
    });
    afterAll(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('reopens an embedded database it had to migrate, and only then; the data survives the reopen', async () => {
      const first = await openMigratedDatabase({ databaseUrl: null, dataDir: dir });
      try {
        expect(first.applied).toEqual(readMigrations().map((m) => m.name));
        expect(first.reopened).toBe(true);
        // The reopened connection is live and sees what the closed one committed.
        const records = await first.db.sql.query<{ n: string }>('select count(*)::text as n from "_prisma_migrations"');
        expect(records[0].n).toBe(String(readMigrations().length));
        // A second holder (another context of the same process) shares it, migrated, as it is.
        const second = await openMigratedDatabase({ databaseUrl: null, dataDir: dir });
        expect(second).toMatchObject({ applied: [], reopened: false });
        await second.db.release();
        await pingDatabase(first.db);
      } finally {
        await first.db.release();
      }
      const again = await openMigratedDatabase({ databaseUrl: null, dataDir: dir });
      expect(again).toMatchObject({ applied: [], reopened: false });
      await again.db.release();
    });
  });

  (postgresAvailable() ? describe : describe.skip)('on Postgres', () => {
    let database: TestDatabase;

    beforeAll(async () => {
      database = await createTestDatabase('migrations');
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('apply exactly once when several processes start at the same time, and produce the Prisma schema', async () => {
      // Separate pools stand in for separate processes: the registry would otherwise share one.
      const { Pool } = await import('pg');
      const pools = Array.from({ length: 4 }, () => new Pool({ connectionString: database.url, max: 1 }));
      // Ended even when an expectation fails, so the database drop never kills live connections
      // (whose errors would then hide the real failure).
      for (const pool of pools) pool.on('error', () => undefined);
      try {
        const executors = pools.map(poolSqlExecutor);
        const applied = await Promise.all(executors.map((sql) => applyMigrations(sql)));
        expect(applied.flat().sort()).toEqual(
          readMigrations()
            .map((m) => m.name)
            .sort(),
        );
        const records = await executors[0].query<{ n: string }>('select count(*)::text as n from "_prisma_migrations"');
        expect(records[0].n).toBe(String(readMigrations().length));
        expect(await actualShapeOfDatabase(executors[0])).toEqual(await expectedShapeFromPrismaSchema());
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    });
  });
});
