import 'reflect-metadata';
import { applyMigrations, type DatabaseConnection, openDatabase } from '@lib/persistence';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { median } from './load';

/**
 * `node dist/bench/src/store-bench.js`: what Prisma Client costs against the same statement sent
 * through the driver (SqlExecutor), per operation, on both databases the platform runs on. The
 * figures decide which stores use Prisma Client and which keep SQL (docs/decisions/0012).
 * Each operation runs sequentially (latency, not throughput: a request's path is sequential),
 * alternating the two ways in rounds so drift hits both alike; medians are reported.
 */
const ROUNDS = Number(process.env.STORE_BENCH_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.STORE_BENCH_OPS ?? 200);

interface Operation {
  name: string;
  prisma: (db: DatabaseConnection, id: string) => Promise<unknown>;
  sql: (db: DatabaseConnection, id: string) => Promise<unknown>;
}

const OPERATIONS: Operation[] = [
  {
    name: 'point read (one job by id, 6 columns)',
    prisma: (db, id) =>
      db.prisma.job.findUnique({
        where: { id },
        select: { id: true, runId: true, clientId: true, status: true, attempt: true, startedAt: true },
      }),
    sql: (db, id) => db.sql.query('select id, run_id, client_id, status, attempt, started_at from jobs where id = $1', [id]),
  },
  {
    name: 'the same read as Prisma raw SQL ($queryRaw)',
    prisma: (db, id) => db.prisma.$queryRaw`select id, run_id, client_id, status, attempt, started_at from jobs where id = ${id}::uuid`,
    sql: (db, id) => db.sql.query('select id, run_id, client_id, status, attempt, started_at from jobs where id = $1', [id]),
  },
  {
    name: 'conditional update (heartbeat: renew a lease)',
    prisma: (db, id) => db.prisma.job.updateMany({ where: { id, attempt: 1, status: 'processing' }, data: { leaseExpiresAt: new Date() } }),
    sql: (db, id) =>
      db.sql.query("update jobs set lease_expires_at = $2 where id = $1 and attempt = 1 and status = 'processing'", [id, new Date()]),
  },
  {
    name: 'counter increment with returning (run counters)',
    prisma: (db, id) =>
      db.prisma.run.update({
        where: { id },
        data: { successRequests: { increment: 1 }, creditsCharged: { increment: 1 } },
        select: { status: true, successRequests: true, totalRequests: true },
      }),
    sql: (db, id) =>
      db.sql.query(
        'update runs set success_requests = success_requests + 1, credits_charged = credits_charged + 1 where id = $1 returning status, success_requests, total_requests',
        [id],
      ),
  },
  {
    name: 'transaction: lock a row, then update it',
    prisma: (db, id) =>
      db.prisma.$transaction(async (tx) => {
        await tx.$queryRaw`select id from jobs where id = ${id}::uuid for update`;
        await tx.job.update({ where: { id }, data: { workerId: 'bench' } });
      }),
    sql: (db, id) =>
      db.sql.transaction(async (tx) => {
        await tx.query('select id from jobs where id = $1 for update', [id]);
        await tx.query('update jobs set worker_id = $2 where id = $1', [id, 'bench']);
      }),
  },
];

async function seed(db: DatabaseConnection): Promise<{ jobId: string; runId: string }> {
  const clientId = `bench-${randomUUID()}`;
  const collectionId = randomUUID();
  const runId = randomUUID();
  const jobId = randomUUID();
  await db.sql.query("insert into clients (id, plan, features) values ($1, 'free', '{}')", [clientId]);
  await db.sql.query(
    "insert into collections (id, client_id, name, requests, request_count, created_at, updated_at) values ($1, $2, 'bench', '[]'::jsonb, 0, now(), now())",
    [collectionId, clientId],
  );
  await db.sql.query(
    "insert into runs (id, collection_id, client_id, status, total_requests, max_concurrency, created_at) values ($1, $2, $3, 'in_progress', 1, 1, now())",
    [runId, collectionId, clientId],
  );
  await db.sql.query(
    "insert into jobs (id, run_id, collection_id, client_id, position, url, request, mode, queued_at, started_at) values ($1, $2, $3, $4, 0, 'http://x', '{}'::jsonb, 'simple', now(), now())",
    [jobId, runId, collectionId, clientId],
  );
  return { jobId, runId };
}

async function measure(db: DatabaseConnection): Promise<Array<{ name: string; prismaUs: number; sqlUs: number; ratio: number }>> {
  const { jobId, runId } = await seed(db);
  const rows = [];
  for (const op of OPERATIONS) {
    const id = op.name.startsWith('counter') ? runId : jobId;
    const timings = { prisma: [] as number[], sql: [] as number[] };
    for (let round = 0; round < ROUNDS + 1; round++) {
      for (const way of ['prisma', 'sql'] as const) {
        const started = performance.now();
        for (let i = 0; i < PER_ROUND; i++) await op[way](db, id);
        // Round 0 warms both ways up (Prisma builds its query plans on first use).
        if (round > 0) timings[way].push(((performance.now() - started) * 1000) / PER_ROUND);
      }
    }
    const prismaUs = median(timings.prisma);
    const sqlUs = median(timings.sql);
    rows.push({
      name: op.name,
      prismaUs: Math.round(prismaUs),
      sqlUs: Math.round(sqlUs),
      ratio: Math.round((prismaUs / sqlUs) * 100) / 100,
    });
  }
  return rows;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-bench-'));
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const scratchName = `store_bench_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${scratchName}`);
  const scratchUrl = new URL(adminUrl);
  scratchUrl.pathname = `/${scratchName}`;
  try {
    for (const [label, settings] of [
      ['PGlite (embedded)', { databaseUrl: null, dataDir }],
      ['Postgres', { databaseUrl: scratchUrl.toString(), dataDir }],
    ] as const) {
      const db = await openDatabase(settings);
      try {
        await applyMigrations(db.sql);
        for (const row of await measure(db))
          console.log(
            `${label.padEnd(18)} ${row.name.padEnd(50)} Prisma ${String(row.prismaUs).padStart(5)} µs  SQL ${String(row.sqlUs).padStart(5)} µs  ×${row.ratio}`,
          );
      } finally {
        await db.release();
      }
    }
  } finally {
    await admin.query(`drop database if exists ${scratchName} with (force)`);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
