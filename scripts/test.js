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
const { spawn } = require('node:child_process');
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
// What jest prints when something a test started outlives the run. The first fails the run: the
// main process was kept alive (each file is checked on its own as well:
// test/support/handle-checking-environment.js). The second is reported, not failed on: a worker
// kept alive after its last file by something that check cannot see (a worker thread is in no
// list of handles), which jest ends itself. TEST_HANDLES=allow lets the first pass too.
const LEFT_OPEN = 'Jest did not exit one second after the test run has completed';
const WORKER_LEFT_OPEN = 'A worker process has failed to exit gracefully';
// After "did not exit", jest waits for the handles for ever; this long is given to it to end anyway.
const HANG_GRACE_MS = 15_000;

const child = spawn(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--disable-warning=ExperimentalWarning',
    path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
    ...(workers === 1 ? ['--runInBand'] : [`--maxWorkers=${workers}`]),
    ...process.argv.slice(2),
  ],
  // jest reports on stderr, read here on its way to the terminal (which keeps its colours).
  { cwd: root, stdio: ['inherit', 'inherit', 'pipe'], env: process.stderr.isTTY ? { FORCE_COLOR: '1', ...process.env } : process.env },
);
const seen = new Set();
let tail = '';
let hangTimer = null;
child.stderr.on('data', (chunk) => {
  process.stderr.write(chunk);
  // The phrase may straddle two chunks: the end of the last one is read with the next.
  const text = tail + chunk.toString('utf8');
  tail = text.slice(-200);
  for (const phrase of [LEFT_OPEN, WORKER_LEFT_OPEN]) if (text.includes(phrase)) seen.add(phrase);
  if (seen.has(LEFT_OPEN) && hangTimer === null) hangTimer = setTimeout(() => child.kill('SIGKILL'), HANG_GRACE_MS).unref();
});
child.on('close', (code, signal) => {
  if (hangTimer) clearTimeout(hangTimer);
  if (seen.has(WORKER_LEFT_OPEN))
    console.error('\nscripts/test.js: note: a jest worker was kept alive after its last file (see above); jest ended it.');
  if (seen.has(LEFT_OPEN) && process.env.TEST_HANDLES !== 'allow') {
    console.error(
      `\nscripts/test.js: the run fails: jest said "${LEFT_OPEN}" — something a test started was left open ` +
        '(run the file alone to see which, or look above for "left handles"); TEST_HANDLES=allow lets it pass.',
    );
    process.exit(code === 0 || code === null ? 1 : code);
  }
  process.exit(code ?? (signal ? 1 : 0));
});
