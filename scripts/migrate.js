#!/usr/bin/env node
'use strict';
// `npm run migrate` (the Kubernetes migration Job, `deploy/entrypoint.sh migrate`): applies the
// pending SQL migrations of prisma/migrations to DATABASE_URL and exits. Every process also
// applies them at start, under the same advisory lock; running this first means a rollout's new
// pods never wait on (or fail in) a schema change, and a failing migration stops the rollout.
require('./build').ensureBuilt({ ifNeeded: true });
const path = require('node:path');
const { applyMigrations, openDatabase } = require(path.resolve(__dirname, '..', 'dist', 'libs', 'persistence', 'src'));

async function main() {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    process.stderr.write('invalid configuration: npm run migrate needs DATABASE_URL\n');
    process.exit(1);
  }
  const db = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    const applied = await applyMigrations(db.sql);
    process.stdout.write(
      `${JSON.stringify({ msg: 'migrations applied', applied, count: applied.length, time: new Date().toISOString() })}\n`,
    );
  } finally {
    await db.release();
  }
}

main().catch((error) => {
  process.stderr.write(`migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
