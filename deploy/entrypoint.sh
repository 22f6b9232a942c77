#!/bin/sh
# `platform` runs every context in one process (embedded or against NATS_URL/DATABASE_URL);
# any other argument is one bounded context (what a Kubernetes Deployment runs).
set -e
name="${1:-platform}"
if [ "$name" = "platform" ]; then exec node --max-semi-space-size=32 dist/apps/platform/src/main.js; fi
exec node --max-semi-space-size=32 scripts/start-service.js "$name"
