#!/usr/bin/env node
// `npm test`: refresh what the tests compile against (the Prisma client, the console build), then
// jest with TEST_WORKERS workers (default 2, this project's 2-core machines). Every test file owns
// its ports (a slice per worker), databases (one per file) and NATS server (one per worker, started
// by test/support/global-setup.ts), so files run side by side. Arguments go to jest as they are:
//   npm test -- test/e2e/batches.e2e-spec.ts        one file
//   npm test -- apps/gateway                        one context's specs (a path pattern)
//   npm test -- --selectProjects unit               only the unit and integration specs
//   TEST_WORKERS=1 npm test                         one file at a time (jest --runInBand)
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
require('./build').ensureBuilt({ generateOnly: true });
const workers = Number(process.env.TEST_WORKERS ?? 2);
if (!Number.isInteger(workers) || workers < 1) {
  console.error(`TEST_WORKERS must be a whole number ≥ 1, not ${process.env.TEST_WORKERS}`);
  process.exit(2);
}
const result = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--disable-warning=ExperimentalWarning',
    path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
    ...(workers === 1 ? ['--runInBand'] : [`--maxWorkers=${workers}`]),
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
