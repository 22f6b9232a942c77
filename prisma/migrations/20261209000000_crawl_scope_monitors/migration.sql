-- Issue 63, monitors over a crawl scope (decision 0038). Nullable columns and a defaulted flag only:
-- nothing to backfill, and a monitor, tick, version or change written before reads as it did.

-- Owned by batch-orchestrator: a monitor watches its urls, or the pages a crawl of this scope finds
-- each tick (null for a URL monitor).
ALTER TABLE "monitors" ADD COLUMN "crawl" jsonb;
-- Why a tick ended without a run (its crawl was refused when it started); null for every other tick.
ALTER TABLE "monitor_ticks" ADD COLUMN "error" text;

-- Owned by result-store: the tick that last saw this version (written with last_seen_at). A page of
-- a crawl-scope monitor that a complete tick did not see is removed; a clock cannot tell it, since
-- the tick's start and a page's fetch are timed on different machines.
ALTER TABLE "page_versions" ADD COLUMN "last_run_id" uuid;
-- A removal no job fetched: the page was no longer found in the monitor's crawl scope (its job_id
-- is made from the tick and the URL; there is no job to read).
ALTER TABLE "page_changes" ADD COLUMN "unseen" boolean NOT NULL DEFAULT false;
