'use strict';
// The bounded contexts and where their compiled entry points live (shared by start-service and stack).
const path = require('node:path');

const SERVICES = ['scrape-engine', 'batch-orchestrator', 'result-store', 'webhook-sender', 'billing-meter', 'proxy-approvals', 'viability-analyzer', 'gateway'];

function entryOf(name) {
  return path.resolve(__dirname, '..', 'dist', 'apps', name, 'src', 'main.js');
}

module.exports = { SERVICES, entryOf };
