#!/usr/bin/env node
'use strict';
// `npm run ops -- [filter]`: prints the platform's ops events (docs/operations.md, libs/contracts
// ops-events) as JSON lines, live, from OPS_NATS_URL or NATS_URL (default nats://127.0.0.1:4222).
// The filter is a NATS subject (`ops.batch-orchestrator.>`, `ops.*.job-failed.v1`) or a context
// name (`webhook-sender` → `ops.webhook-sender.>`); none: every ops event (`ops.>`).
const { connect } = require('nats');

function subjectOf(filter) {
  if (!filter) return 'ops.>';
  if (filter.startsWith('ops.') || filter === 'ops.>') return filter;
  if (/^[a-z-]+$/.test(filter)) return `ops.${filter}.>`;
  process.stderr.write(`usage: npm run ops -- [ops.<subject> | <context>] (got "${filter}")\n`);
  process.exit(2);
}

async function main() {
  const url = process.env.OPS_NATS_URL || process.env.NATS_URL || 'nats://127.0.0.1:4222';
  const subject = subjectOf(process.argv[2]);
  const nc = await connect({ servers: [url], name: `ops-tail-${process.pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 1000 });
  process.stderr.write(`listening on ${url} for ${subject} (Ctrl-C to stop)\n`);
  const stop = () => void nc.drain().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  for await (const message of nc.subscribe(subject)) {
    let event;
    try {
      event = JSON.parse(message.string());
    } catch {
      event = { unparsed: message.string() };
    }
    process.stdout.write(`${JSON.stringify({ subject: message.subject, ...event })}\n`);
  }
}

main().catch((error) => {
  process.stderr.write(`ops tail failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
