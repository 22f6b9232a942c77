#!/bin/sh
# `platform` runs every context in one process (embedded or against NATS_URL/DATABASE_URL);
# `migrate` applies the database migrations and exits; any other argument is one bounded context
# (what a Kubernetes Deployment runs).
set -e
# glibc keeps freed memory in per-thread arenas unless told to trim; with it, what the idle
# reclaimer frees (--expose-gc, MEMORY_RECLAIM_IDLE_SECONDS) goes back to the system.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}" MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-131072}"
name="${1:-platform}"
if [ "$name" = "platform" ]; then exec node --expose-gc --max-semi-space-size=32 dist/apps/platform/src/main.js; fi
# The Kubernetes migration Job: apply pending migrations to DATABASE_URL, then exit.
if [ "$name" = "migrate" ]; then exec node scripts/migrate.js; fi
exec node --expose-gc --max-semi-space-size=32 scripts/start-service.js "$name"
