-- Issue 63, the page cache (docs/decisions/0037). Owned by result-store: the last usable result of
-- each client's request, keyed by what changes the result (PageCacheKey), kept compressed with the
-- origin's validators so a stale entry can be revalidated (If-None-Match / If-Modified-Since)
-- instead of fetched. A new table: nothing to backfill, and the previous release never reads it.
CREATE TABLE "page_cache" (
  "client_id" text NOT NULL,
  "cache_key" char(64) NOT NULL,
  "url" text NOT NULL,
  -- The response body as JSON, brotli-compressed.
  "body" bytea NOT NULL,
  "body_bytes" int NOT NULL,
  "etag" text,
  "last_modified" text,
  "fetched_at" timestamptz(3) NOT NULL,
  -- The last time the origin gave or confirmed this content: max_age counts from here.
  "validated_at" timestamptz(3) NOT NULL,
  PRIMARY KEY ("client_id", "cache_key")
);
-- Retention sweeps entries not confirmed for longer than the longest max_age.
CREATE INDEX "page_cache_validated_at_idx" ON "page_cache" ("validated_at");
