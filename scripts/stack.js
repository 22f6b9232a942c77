#!/usr/bin/env node
'use strict';
// `npm run stack`: every bounded context as its own process against NATS_URL + DATABASE_URL, a
// local rehearsal of the Kubernetes topology. Like a Deployment's restart policy, a context that
// dies is started again after a backoff (1 s, doubling to 30 s, back to 1 s once it has stayed
// up for a minute) while the others keep serving; each start and exit is logged as a JSON line.
// SIGTERM/SIGINT stop every child.
const { spawn } = require('node:child_process');
const { SERVICES, entryOf } = require('./services');

if (!process.env.NATS_URL || !process.env.DATABASE_URL) {
  process.stderr.write('invalid configuration: npm run stack needs NATS_URL and DATABASE_URL\n');
  process.exit(1);
}

require('./build').ensureBuilt({ ifNeeded: true });

const BACKOFF = { firstMs: Number(process.env.STACK_RESTART_BACKOFF_MS ?? 1000), maxMs: 30_000, stableMs: 60_000 };
const children = new Map();
let stopping = false;

function log(fields, msg) {
  process.stdout.write(`${JSON.stringify({ service: 'stack', pid: process.pid, time: Date.now(), ...fields, msg })}\n`);
}

function start(name, state = { backoffMs: BACKOFF.firstMs, restarts: 0 }) {
  const child = spawn(process.execPath, [...process.execArgv, entryOf(name)], { stdio: 'inherit', env: process.env });
  const startedAt = Date.now();
  children.set(name, child);
  log({ context: name, child_pid: child.pid, restarts: state.restarts }, `started ${name}`);
  child.on('exit', (code, signal) => {
    if (stopping) return;
    // A context that stayed up a while crashed once, not in a loop: start over from the short wait.
    const backoffMs = Date.now() - startedAt >= BACKOFF.stableMs ? BACKOFF.firstMs : state.backoffMs;
    log(
      { context: name, exit: signal ?? code, restart_in_ms: backoffMs },
      `${name} exited (${signal ?? code}); restarting in ${backoffMs} ms`,
    );
    const timer = setTimeout(() => {
      if (!stopping) start(name, { backoffMs: Math.min(BACKOFF.maxMs, backoffMs * 2), restarts: state.restarts + 1 });
    }, backoffMs);
    children.set(name, { timer, exitCode: code ?? 1, signalCode: signal, kill: () => clearTimeout(timer) });
  });
}

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill('SIGTERM');
  const deadline = setTimeout(() => process.exit(code), 15000);
  deadline.unref();
  const check = setInterval(() => {
    if ([...children.values()].every((c) => c.exitCode !== null || c.signalCode !== null)) {
      clearInterval(check);
      process.exit(code);
    }
  }, 100);
}

for (const name of SERVICES) start(name);

process.on('SIGTERM', () => stopAll(0));
process.on('SIGINT', () => stopAll(0));
