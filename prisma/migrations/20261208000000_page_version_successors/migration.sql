-- Issue 63: a page's version names the version it succeeds (0 for a page's first version), and a
-- version has at most one successor. A new version is written in one statement without a lock:
-- two writers that compared against the same version cannot both succeed it, the second is refused
-- and compares again. Rows written before this (previous_id null) are distinct to the index, so the
-- upgrade needs no backfill.
ALTER TABLE "page_versions" ADD COLUMN "previous_id" bigint;
CREATE UNIQUE INDEX "page_versions_successor_key" ON "page_versions" ("monitor_id", "url", "previous_id");
