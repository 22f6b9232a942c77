#!/usr/bin/env node
// `npm test`: refresh what the tests compile against (the Prisma client, the console build), then
// jest with TEST_WORKERS workers (default 2, this project's 2-core machines; 1 for the drills). Every test file owns
// its ports (a slice per worker), databases (one per file) and NATS server (one per worker, started
// by test/support/global-setup.ts), so files run side by side. Arguments go to jest as they are:
//   npm test -- test/e2e/batches.e2e-spec.ts        one file
//   npm test -- apps/gateway                        one context's specs (a path pattern)
//   npm test -- --selectProjects unit               only the unit and integration specs
//   TEST_WORKERS=1 npm test                         one file at a time (jest --runInBand)
//   npm run test:drills                             the drills jest.config.js keeps apart (TEST_SUITE=drills)
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
require('./build').ensureBuilt({ generateOnly: true });
// The drills run one file at a time: they bound recovery times and memory, which a file running
// beside them distorts (a batch-orchestrator kill recovered in 17.7 s beside another drill, 6 s alone).
const workers = Number(process.env.TEST_WORKERS ?? (process.env.TEST_SUITE === 'drills' ? 1 : 2));
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
