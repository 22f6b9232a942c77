import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type DatabaseConnection, type DatabaseSettings, openDatabase, type SqlExecutor } from './database-connection';

/** Where migrations live, in Prisma's layout: prisma/migrations/<timestamp>_<name>/migration.sql. */
export const DEFAULT_MIGRATIONS_DIR = path.resolve(__dirname, '../../../prisma/migrations');

// Any constant works; it only has to be the same in every process of the platform.
const MIGRATION_LOCK_KEY = 727_100_001;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationChecksumError extends Error {}

export function readMigrations(dir: string = locateMigrationsDir()): Migration[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies pending migrations. Prisma's migrate CLI needs a native schema engine that cannot be
 * downloaded here, so the platform applies its own SQL at start-up. Records go to Prisma's own
 * `_prisma_migrations` table with the same columns, so `prisma migrate status` agrees wherever the
 * engine is available. Everything runs in one transaction under an advisory lock: two processes
 * starting at once apply each migration exactly once, and a failed migration leaves nothing behind.
 */
export async function applyMigrations(sql: SqlExecutor, migrations: Migration[] = readMigrations()): Promise<string[]> {
  return sql.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(`create table if not exists "_prisma_migrations" (
      "id" varchar(36) primary key,
      "checksum" varchar(64) not null,
      "finished_at" timestamptz,
      "migration_name" varchar(255) not null,
      "logs" text,
      "rolled_back_at" timestamptz,
      "started_at" timestamptz not null default now(),
      "applied_steps_count" integer not null default 0
    )`);
    const applied = await tx.query<{ migration_name: string; checksum: string }>(
      'select migration_name, checksum from "_prisma_migrations" where rolled_back_at is null and finished_at is not null',
    );
    const appliedByName = new Map(applied.map((row) => [row.migration_name, row.checksum]));
    const newlyApplied: string[] = [];
    for (const migration of migrations) {
      const checksum = appliedByName.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new MigrationChecksumError(`migration ${migration.name} was edited after it was applied; add a new migration instead`);
        }
        continue;
      }
      await tx.exec(migration.sql);
      await tx.query(
        `insert into "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
         values ($1, $2, now(), $3, now(), 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      newlyApplied.push(migration.name);
    }
    return newlyApplied;
  });
}

export interface MigratedDatabase {
  db: DatabaseConnection;
  /** The migrations this open applied (all of them on a first start, none after). */
  applied: string[];
  /** The embedded database was released after migrating and opened again: on a new thread unless another holder kept it open (see below). */
  reopened: boolean;
}

/**
 * Opens the database with every migration applied. An embedded database that had migrations to
 * apply (a first start: initdb, then every migration) is closed and opened again on a new thread.
 * PGlite's WebAssembly memory grows to hold that work and never shrinks, so a first start would
 * idle above a restart on the same data (decision 0030 has the figures). Where other holders share the
 * connection, the release only drops this one's reference and the open returns the same one:
 * nothing is lost, only the memory stays.
 */
export async function openMigratedDatabase(settings: DatabaseSettings): Promise<MigratedDatabase> {
  const db = await openDatabase(settings);
  let applied: string[];
  try {
    applied = await applyMigrations(db.sql);
  } catch (error) {
    await db.release();
    throw error;
  }
  if (applied.length === 0 || db.kind !== 'pglite') return { db, applied, reopened: false };
  await db.release();
  return { db: await openDatabase(settings), applied, reopened: true };
}

/** Finds prisma/migrations from the sources (ts-jest) and from dist/ alike. */
function locateMigrationsDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 8; i += 1) {
    const candidate = path.join(dir, 'prisma', 'migrations');
    if (fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return DEFAULT_MIGRATIONS_DIR;
}
