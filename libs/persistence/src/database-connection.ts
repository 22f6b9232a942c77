import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import fs from 'node:fs';
import path from 'node:path';
import { Pool } from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from './generated/prisma/client';
import { EmbeddedDatabaseThread } from './embedded-database-thread';
import { storableParams } from './storable-text';

/** Plain SQL access for what Prisma's query API does not cover (migrations, counters, locks). */
export interface SqlExecutor {
  /** Runs one or more statements without parameters (simple query protocol). */
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `fn` in one transaction on one connection. */
  transaction<T>(fn: (tx: SqlTransactionScope) => Promise<T>): Promise<T>;
  /**
   * A transaction that its opening statement usually completes (a job's claim, a job's end): the
   * statement runs, then `rest` with its rows. When the first row's `goesOnWhen` column is not
   * true, the statement was all the transaction held: it has committed before `rest` runs, and
   * `rest`'s scope takes no statement (its afterCommit hooks run once `rest` returns). Otherwise
   * `rest` runs inside the transaction, which commits after it.
   *
   * Why: the embedded database has one connection, so a transaction holds it from BEGIN to COMMIT,
   * and a transaction whose COMMIT is sent by the caller holds it across the caller's event-loop
   * turns. Here the database thread commits by itself. On that database a transaction that goes
   * on is rolled back and run again whole (statement and `rest`), so `rest` must not assume the
   * first run's rows; on Postgres it simply goes on.
   */
  transactionOpenedBy<R, T>(opening: OpeningStatement, rest: (tx: SqlTransactionScope, rows: R[]) => Promise<T>): Promise<T>;
}

/** A transaction's first statement, and the column of its first row that says the transaction goes on. */
export interface OpeningStatement {
  text: string;
  params: unknown[];
  goesOnWhen: string;
}

/** Statements inside one transaction, and what to do once it has committed. */
export interface SqlTransactionScope extends Omit<SqlExecutor, 'transaction' | 'transactionOpenedBy'> {
  /**
   * Runs `hook` after the transaction commits, never if it rolls back: for facts told to others
   * (ops events), which must not announce a change that did not happen. Hooks run in order; one
   * that throws is ignored (the transaction has committed: its caller's result stands).
   */
  afterCommit(hook: () => void): void;
}

/** Gathers a transaction's after-commit hooks and runs them once it has committed. */
class AfterCommitHooks {
  private readonly hooks: Array<() => void> = [];
  add = (hook: () => void): void => void this.hooks.push(hook);
  run(): void {
    for (const hook of this.hooks.splice(0)) {
      try {
        hook();
      } catch {
        // see SqlTransactionScope.afterCommit
      }
    }
  }
}

export interface DatabaseConnection {
  kind: 'postgres' | 'pglite';
  prisma: PrismaClient;
  sql: SqlExecutor;
  /** The pg pool (Postgres only): for stores that take a node-postgres client. */
  pool: Pool | null;
  release(): Promise<void>;
}

/**
 * What `rest` runs with when its opening statement did not go on: its transaction's hooks, and no
 * statement (on both databases alike, though only the embedded one has committed by then).
 */
function refusingScope(afterCommit: SqlTransactionScope['afterCommit'], opening: OpeningStatement): SqlTransactionScope {
  const refuse = () =>
    Promise.reject(
      new Error(`the transaction committed with its opening statement (${opening.goesOnWhen} was not true): no statement follows it`),
    );
  return { exec: refuse, query: refuse, afterCommit };
}

function goesOn(rows: unknown[], opening: OpeningStatement): boolean {
  return (rows[0] as Record<string, unknown> | undefined)?.[opening.goesOnWhen] === true;
}

/** transactionOpenedBy on a connection that keeps its transaction while the caller decides. */
function openedInOneTransaction(sql: Pick<SqlExecutor, 'transaction'>): SqlExecutor['transactionOpenedBy'] {
  return <R, T>(opening: OpeningStatement, rest: (tx: SqlTransactionScope, rows: R[]) => Promise<T>) =>
    sql.transaction(async (tx) => {
      const rows = await tx.query<R>(opening.text, opening.params);
      return rest(goesOn(rows, opening) ? tx : refusingScope(tx.afterCommit, opening), rows);
    });
}

/** One round trip to the database (health checks): resolves when it answers. */
export async function pingDatabase(db: Pick<DatabaseConnection, 'sql'>): Promise<void> {
  await db.sql.query('select 1');
}

export interface DatabaseSettings {
  databaseUrl: string | null;
  dataDir: string;
  /**
   * The embedded database's thread collects its heap after idling this long
   * (MEMORY_RECLAIM_IDLE_SECONDS; 0: never). Left out by the short-lived callers without a
   * platform config (tests, migrate, bench:stores), which never idle long enough to need it.
   */
  memoryReclaimIdleMs?: number;
}

interface Shared {
  connection: Omit<DatabaseConnection, 'release'>;
  close(): Promise<void>;
  refs: number;
}

/**
 * One database connection per process and target, shared by every context in the process.
 * PGlite in particular can be opened only once per data directory, and the embedded runtime runs
 * all eight contexts in one process.
 */
const registry = new Map<string, Promise<Shared>>();

export async function openDatabase(settings: DatabaseSettings): Promise<DatabaseConnection> {
  const key = settings.databaseUrl ?? `pglite:${settings.dataDir}`;
  let entry = registry.get(key);
  if (!entry) {
    entry = (
      settings.databaseUrl ? openPostgres(settings.databaseUrl) : openPglite(settings.dataDir, settings.memoryReclaimIdleMs ?? 0)
    ).catch((error: unknown) => {
      registry.delete(key);
      throw error;
    });
    registry.set(key, entry);
  }
  const shared = await entry;
  shared.refs += 1;
  let released = false;
  return {
    ...shared.connection,
    async release() {
      if (released) return;
      released = true;
      shared.refs -= 1;
      if (shared.refs === 0) {
        registry.delete(key);
        await shared.close();
      }
    },
  };
}

async function openPostgres(url: string): Promise<Shared> {
  const pool = new Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor may one that is checked out (in a transaction, or held by Prisma) when Postgres restarts:
  // its 'error' event had no listener and killed batch-orchestrator. The query in progress fails
  // on its own and its caller retries; the broken client is discarded when released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  await pool.query('select 1');
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const sql = poolSqlExecutor(pool);
  return {
    connection: { kind: 'postgres', prisma, sql, pool },
    refs: 0,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** SqlExecutor over a node-postgres pool; a transaction holds one pooled connection. */
export function poolSqlExecutor(pool: Pool): SqlExecutor {
  const executor: SqlExecutor = {
    transactionOpenedBy: (opening, rest) => openedInOneTransaction(executor)(opening, rest),
    async exec(text) {
      await pool.query(text);
    },
    async query<T>(text: string, params: unknown[] = []) {
      return (await pool.query(text, storableParams(params))).rows as T[];
    },
    async transaction(fn) {
      const client = await pool.connect();
      const hooks = new AfterCommitHooks();
      let released = false;
      try {
        await client.query('begin');
        const result = await fn({
          exec: async (text) => void (await client.query(text)),
          query: async <T>(text: string, params: unknown[] = []) => (await client.query(text, storableParams(params))).rows as T[],
          afterCommit: hooks.add,
        });
        await client.query('commit');
        hooks.run();
        return result;
      } catch (error) {
        const rolledBack = await client.query('rollback').then(
          () => true,
          () => false,
        );
        // A connection that cannot even roll back is broken: destroy it rather than pool it.
        client.release(rolledBack ? undefined : (error as Error));
        released = true;
        throw error;
      } finally {
        if (!released) client.release();
      }
    },
  };
  return executor;
}

// The embedded database's memory: Postgres's default 128 MB of shared buffers is a third of an
// idle install's memory and buys nothing at this size (every table of a one-process install fits
// in 16 MB many times over; docs/benchmarks.md has what it saves).
const EMBEDDED_SETTINGS = ['shared_buffers=16MB', 'wal_buffers=1MB', 'work_mem=2MB', 'maintenance_work_mem=16MB'];

async function openPglite(dataDir: string, memoryReclaimIdleMs: number): Promise<Shared> {
  const dir = path.join(dataDir, 'pglite');
  fs.mkdirSync(dir, { recursive: true });
  // On a thread of its own: the second core, not the event loop that serves requests (decision 0030).
  const db = await EmbeddedDatabaseThread.open({
    dataDir: dir,
    startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((s) => ['-c', s])],
    memoryReclaimIdleMs,
  });
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(db) });
  const sql: SqlExecutor = {
    async exec(text) {
      await db.exec(text);
    },
    query: async <T>(text: string, params: unknown[] = []) => db.statement<T>(text, storableParams(params)),
    async transaction(fn) {
      const hooks = new AfterCommitHooks();
      const result = await db.statementTransaction((tx) =>
        fn({
          exec: (text) => tx.exec(text),
          query: async <T>(text: string, params: unknown[] = []) => tx.statement<T>(text, storableParams(params)),
          afterCommit: hooks.add,
        }),
      );
      hooks.run();
      return result;
    },
    async transactionOpenedBy<R, T>(opening: OpeningStatement, rest: (tx: SqlTransactionScope, rows: R[]) => Promise<T>) {
      const rows = await db.inOwnTransaction<R>(opening.text, storableParams(opening.params), opening.goesOnWhen);
      if (rows === null) return openedInOneTransaction(sql)(opening, rest);
      const hooks = new AfterCommitHooks();
      const result = await rest(refusingScope(hooks.add, opening), rows);
      hooks.run();
      return result;
    },
  };
  return {
    connection: { kind: 'pglite', prisma, sql, pool: null },
    refs: 0,
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  };
}
