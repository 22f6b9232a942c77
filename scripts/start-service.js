#!/usr/bin/env node
'use strict';
// `npm run start:service -- <name>`: one bounded context in this process (what one Kubernetes
// Deployment runs). Needs NATS_URL and DATABASE_URL.
const { SERVICES, entryOf } = require('./services');

const name = process.argv[2];
if (!name || !SERVICES.includes(name)) {
  process.stderr.write(`usage: npm run start:service -- <name>; name is one of: ${SERVICES.join(', ')}\n`);
  process.exit(1);
}
require('./build').ensureBuilt({ ifNeeded: true });
require(entryOf(name));
