#!/usr/bin/env node
'use strict';
// `npm run stack`: every bounded context as its own process against NATS_URL + DATABASE_URL, a
// local rehearsal of the Kubernetes topology. Output lines are JSON logs already tagged with
// their service. SIGTERM/SIGINT stop every child; if one child dies, the stack stops.
const { spawn } = require('node:child_process');
const { SERVICES, entryOf } = require('./services');

if (!process.env.NATS_URL || !process.env.DATABASE_URL) {
  process.stderr.write('invalid configuration: npm run stack needs NATS_URL and DATABASE_URL\n');
  process.exit(1);
}

require('./build').ensureBuilt({ ifNeeded: true });

const children = new Map();
let stopping = false;

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

for (const name of SERVICES) {
  const child = spawn(process.execPath, [entryOf(name)], { stdio: 'inherit', env: process.env });
  children.set(name, child);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`${name} exited (${signal ?? code}); stopping the stack\n`);
      stopAll(1);
    }
  });
}

process.on('SIGTERM', () => stopAll(0));
process.on('SIGINT', () => stopAll(0));
