#!/usr/bin/env node
// `npm run drills:repeat`: the kill -9 drills, again and again, to tell a drill that holds from one
// that passed once (issue 61). Runs every chosen drill `--times` rounds in a row (default 20), one
// jest run per file and round (jest's `-t` filter), and prints a line per round and a table at the
// end: passes, failures, and the slowest recovery the drills printed. A failed round keeps its
// whole output in test-results/drills/<file>-round-<n>.log (the drills print there the rows a stuck
// run waits on and the stack's log).
//   npm run drills:repeat                                   every kill -9 drill, 20 times each
//   npm run drills:repeat -- --times 5 --only "batch-orchestrator mid-crawl"
//   npm run drills:repeat -- --list                          the drills it would run
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** Every drill that kills a process with SIGKILL, in both runtimes: its file and its jest name filter. */
const DRILLS = [
  ...['scrape-engine', 'batch-orchestrator', 'webhook-sender', 'billing-meter', 'result-store', 'gateway', 'proxy-approvals'].map(
    (context) => ({
      runtime: 'distributed',
      file: 'test/e2e/fault-injection.e2e-spec.ts',
      name: `kill -9 of ${context} mid-run`,
    }),
  ),
  ...['site-discovery', 'scrape-engine', 'batch-orchestrator', 'result-store', 'webhook-sender'].map((context) => ({
    runtime: 'distributed',
    file: 'test/e2e/fault-injection.e2e-spec.ts',
    name: `kill -9 of ${context} mid-crawl`,
  })),
  ...['batch-orchestrator', 'scrape-engine', 'result-store', 'Postgres'].map((target) => ({
    runtime: 'distributed',
    file: 'test/e2e/fault-injection.e2e-spec.ts',
    name: `a monitor tick with ${target} killed mid-tick`,
  })),
  {
    runtime: 'distributed',
    file: 'test/e2e/fault-injection.e2e-spec.ts',
    name: 'a monitor tick with two orchestrators, one killed (-9) mid-tick',
  },
  { runtime: 'distributed', file: 'test/e2e/fault-injection.e2e-spec.ts', name: 'kill -9 of webhook-sender with a delivery in flight' },
  { runtime: 'distributed', file: 'test/e2e/fault-injection.e2e-spec.ts', name: 'kill -9 of viability-analyzer mid-analysis' },
  { runtime: 'distributed', file: 'test/e2e/batch-worker-failure.e2e-spec.ts', name: "re-dispatches the dead worker's jobs" },
  { runtime: 'embedded', file: 'test/e2e/batch-worker-failure.e2e-spec.ts', name: 'completes every job exactly once after the restart' },
  {
    runtime: 'embedded',
    file: 'test/e2e/processes.e2e-spec.ts',
    name: 'finishes a viability run that was mid-analysis when the process was killed',
  },
  { runtime: 'embedded', file: 'test/e2e/processes.e2e-spec.ts', name: 'finishes a crawl that was under way when the process was killed' },
  { runtime: 'embedded', file: 'test/e2e/processes.e2e-spec.ts', name: "gives a killed (-9) process's credit lease back" },
  {
    runtime: 'embedded',
    file: 'test/e2e/processes.e2e-spec.ts',
    name: 'finishes a monitor tick that was under way when the process was killed (-9)',
  },
];

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
}

const times = Number(option('times', '20'));
if (!Number.isInteger(times) || times < 1) {
  console.error(`--times must be a whole number ≥ 1, not ${option('times')}`);
  process.exit(2);
}
const only = option('only', null);
const chosen = DRILLS.filter((d) => !only || d.name.includes(only));
if (chosen.length === 0) {
  console.error(`no drill's name contains "${only}"; --list shows them`);
  process.exit(2);
}
if (process.argv.includes('--list')) {
  for (const d of chosen) console.log(`${d.runtime.padEnd(12)} ${d.file}  ${d.name}`);
  process.exit(0);
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const logs = path.join(root, 'test-results', 'drills');
fs.mkdirSync(logs, { recursive: true });
const rows = new Map(chosen.map((drill) => [drill, { drill, passed: 0, failed: 0, missing: 0, slowestStallMs: 0, slowestCompletedMs: 0 }]));
const files = [...new Set(chosen.map((d) => d.file))];
const began = Date.now();
// One jest run per file and round: the drills of a file share its set-up (the fault-injection stack
// takes ~40 s to start), and run in the file's order, as CI runs them.
for (let n = 1; n <= times; n += 1) {
  for (const file of files) {
    const drills = chosen.filter((d) => d.file === file);
    const started = Date.now();
    const run = spawnSync(
      process.execPath,
      [path.join(root, 'scripts', 'test.js'), file, '-t', drills.map((d) => escape(d.name)).join('|'), '--verbose'],
      { cwd: root, env: { ...process.env, TEST_SUITE: 'drills', TEST_WORKERS: '1' }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
    );
    const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
    // The recovery lines the fault-injection drills print, by fault.
    const recovery = new Map(
      [...output.matchAll(/^\s+(\S+)\s+healthy after\s+\d+ ms, longest stall\s+(\d+) ms, completed after\s+(\d+) ms/gm)].map((m) => [
        m[1],
        { stallMs: Number(m[2]), completedMs: Number(m[3]) },
      ]),
    );
    let failedHere = false;
    for (const drill of drills) {
      const row = rows.get(drill);
      const line = output.split('\n').find((l) => l.includes(drill.name) && /[✓✕]/.test(l));
      if (!line) row.missing += 1;
      else if (line.includes('✓')) row.passed += 1;
      else row.failed += 1;
      failedHere ||= !line || line.includes('✕');
      const context = /kill -9 of (\S+)/.exec(drill.name)?.[1];
      const monitorTarget =
        /a monitor tick with (\S+) killed/.exec(drill.name)?.[1] ??
        (drill.name.includes('two orchestrators') ? 'second-orchestrator' : null);
      const fault = monitorTarget
        ? `monitor-tick-${monitorTarget}`
        : drill.name.includes('mid-crawl')
          ? `crawl-kill-${context}`
          : drill.name.includes('in flight')
            ? 'kill-webhook-sender-mid-post'
            : `kill-${context}`;
      // The embedded drills print when the restarted process served again and when the held work ran again.
      const kind = drill.name.includes('viability') ? 'viability' : drill.name.includes('crawl') ? 'crawl' : null;
      const embedded =
        drill.runtime === 'embedded'
          ? [...output.matchAll(/embedded (crawl|viability) kill -9: serving again (\d+) ms, .*?(\d+) ms after the kill/g)].find(
              (m) => m[1] === kind,
            )
          : undefined;
      const seen = embedded
        ? { stallMs: Number(embedded[3]) - Number(embedded[2]), completedMs: Number(embedded[3]) }
        : drill.runtime === 'distributed'
          ? recovery.get(fault)
          : undefined;
      if (seen) {
        row.slowestStallMs = Math.max(row.slowestStallMs, seen.stallMs);
        row.slowestCompletedMs = Math.max(row.slowestCompletedMs, seen.completedMs);
      }
    }
    if (failedHere || run.status !== 0) {
      const kept = path.join(logs, `${path.basename(file, '.e2e-spec.ts')}-round-${n}.log`);
      fs.writeFileSync(kept, output);
      console.log(`  kept the failed round's output in ${path.relative(root, kept)}`);
    }
    console.log(
      `round ${n}/${times} · ${file}: ${failedHere || run.status !== 0 ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  }
}

console.log(`\n${times} round(s) in ${((Date.now() - began) / 60_000).toFixed(1)} minutes`);
// Distributed: the longest time the run or crawl stood still after the fault, and the fault to its
// completion. Embedded: the process's restart to the held work running again, and the kill to it.
console.log(
  '| runtime | drill | passed | failed | not run | longest stall (embedded: restart → work again) | slowest completion (embedded: kill → work again) |',
);
console.log('|---|---|---|---|---|---|---|');
for (const r of rows.values())
  console.log(
    `| ${r.drill.runtime} | ${r.drill.name} | ${r.passed} | ${r.failed} | ${r.missing} | ${r.slowestStallMs ? `${(r.slowestStallMs / 1000).toFixed(1)} s` : '—'} | ${r.slowestCompletedMs ? `${(r.slowestCompletedMs / 1000).toFixed(1)} s` : '—'} |`,
  );
process.exit([...rows.values()].some((r) => r.failed > 0 || r.missing > 0) ? 1 : 0);
