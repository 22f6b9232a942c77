-- Issue 63, monitors (docs/decisions/0038). New tables only: nothing to backfill, and the previous
-- release never reads them; a tick is a run of kind 'monitor' (runs.kind is free text).

-- Owned by batch-orchestrator: what to watch and when. The scheduler takes a due monitor under its
-- row lock and moves next_tick_at in the transaction that opens the tick's run, so one due schedule
-- is one tick whichever replica takes it. running_tick_id: the tick in progress (none starts while
-- one runs); the tick reporter clears it once the run completed and its webhook is written.
CREATE TABLE "monitors" (
  "id" uuid PRIMARY KEY,
  "client_id" text NOT NULL,
  "name" text,
  "state" text NOT NULL,
  "urls" jsonb NOT NULL,
  "schedule" jsonb NOT NULL,
  "scrape" jsonb NOT NULL,
  "extract" jsonb,
  "ignore_rules" jsonb NOT NULL,
  "webhook_url" text,
  "notify" text NOT NULL,
  "max_concurrency" int NOT NULL,
  "monthly_credits" int,
  "next_tick_at" timestamptz(3),
  "last_tick_at" timestamptz(3),
  "running_tick_id" uuid,
  "ticks" int NOT NULL DEFAULT 0,
  "created_at" timestamptz(3) NOT NULL
);
CREATE INDEX "monitors_client_id_idx" ON "monitors" ("client_id");
CREATE INDEX "monitors_next_tick_at_idx" ON "monitors" ("next_tick_at");

-- Owned by batch-orchestrator: one row per tick (its run), reported_at null until the tick
-- reporter has written the tick's webhook (the outbox of that step).
CREATE TABLE "monitor_ticks" (
  "run_id" uuid PRIMARY KEY,
  "monitor_id" uuid NOT NULL,
  "client_id" text NOT NULL,
  "started_at" timestamptz(3) NOT NULL,
  "changes" int,
  "reported_at" timestamptz(3)
);
CREATE INDEX "monitor_ticks_monitor_id_idx" ON "monitor_ticks" ("monitor_id");
CREATE INDEX "monitor_ticks_reported_at_idx" ON "monitor_ticks" ("reported_at");

-- Owned by result-store: one row per distinct version of a monitored page (a page seen again
-- unchanged moves last_seen_at and stores nothing), its compared markdown and extraction
-- brotli-compressed, keyed by content hash within the page.
CREATE TABLE "page_versions" (
  "id" bigserial PRIMARY KEY,
  "client_id" text NOT NULL,
  "monitor_id" uuid NOT NULL,
  "url" text NOT NULL,
  "content_hash" char(64) NOT NULL,
  "content" bytea NOT NULL,
  "first_seen_at" timestamptz(3) NOT NULL,
  "last_seen_at" timestamptz(3) NOT NULL,
  "job_id" uuid NOT NULL
);
CREATE INDEX "page_versions_monitor_id_url_id_idx" ON "page_versions" ("monitor_id", "url", "id");

-- Owned by result-store: a page of a tick that was new, changed or removed (never same), keyed by
-- its job: a worker's repeat finds the comparison it made the first time.
CREATE TABLE "page_changes" (
  "job_id" uuid PRIMARY KEY,
  "run_id" uuid NOT NULL,
  "client_id" text NOT NULL,
  "monitor_id" uuid NOT NULL,
  "url" text NOT NULL,
  "change_status" text NOT NULL,
  "previous_at" timestamptz(3),
  "detected_at" timestamptz(3) NOT NULL,
  "diff" text,
  "json_diff" jsonb
);
CREATE INDEX "page_changes_run_id_idx" ON "page_changes" ("run_id");
CREATE INDEX "page_changes_monitor_id_detected_at_idx" ON "page_changes" ("monitor_id", "detected_at");
