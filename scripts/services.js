'use strict';
// The bounded contexts and where their compiled entry points live (shared by start-service and stack).
// The list is libs/contracts' BOUNDED_CONTEXTS, read from its source: these scripts check a
// service's name before anything is built, and a second list here would drift from the one there.
const fs = require('node:fs');
const path = require('node:path');

function boundedContexts() {
  const source = fs.readFileSync(path.resolve(__dirname, '..', 'libs', 'contracts', 'src', 'bounded-contexts.ts'), 'utf8');
  const list = /BOUNDED_CONTEXTS = \[([^\]]*)\]/.exec(source);
  if (!list) throw new Error('BOUNDED_CONTEXTS not found in libs/contracts/src/bounded-contexts.ts');
  return [...list[1].matchAll(/'([a-z-]+)'/g)].map((m) => m[1]);
}

// The gateway starts last: it asks the others from its first request.
const SERVICES = [...boundedContexts().filter((name) => name !== 'gateway'), 'gateway'];

function entryOf(name) {
  return path.resolve(__dirname, '..', 'dist', 'apps', name, 'src', 'main.js');
}

module.exports = { SERVICES, entryOf };
