-- Crawls (issue 39), owned by site-discovery: one row per crawl (its scope, bounds and counters; its
-- id is also its run's on the job engine) and one row per page it admitted, keyed by the page's
-- normal form, so a page is admitted once however often it is linked or a worker restarts. The
-- crawl row carries a lease: one discovery worker at a time reads its pages' links.
CREATE TABLE "crawls" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "request" JSONB NOT NULL,
    "state" TEXT NOT NULL,
    "robots_status" TEXT NOT NULL,
    "max_pages" INTEGER NOT NULL,
    "max_depth" INTEGER NOT NULL,
    "page_credits" INTEGER NOT NULL,
    "max_credits" INTEGER,
    "admitted" INTEGER NOT NULL DEFAULT 0,
    "skipped" JSONB NOT NULL DEFAULT '{}',
    "zero_pages_reason" TEXT,
    "plan" JSONB,
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "crawls_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "crawls_state_lease_until_idx" ON "crawls"("state", "lease_until");
CREATE INDEX "crawls_client_id_created_at_idx" ON "crawls"("client_id", "created_at");

CREATE TABLE "crawl_pages" (
    "crawl_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "depth" INTEGER NOT NULL,
    "job_id" UUID NOT NULL,
    "state" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,

    CONSTRAINT "crawl_pages_pkey" PRIMARY KEY ("crawl_id","key")
);

CREATE INDEX "crawl_pages_crawl_id_state_seq_idx" ON "crawl_pages"("crawl_id", "state", "seq");

ALTER TABLE "crawl_pages" ADD CONSTRAINT "crawl_pages_crawl_id_fkey" FOREIGN KEY ("crawl_id") REFERENCES "crawls"("id") ON DELETE CASCADE ON UPDATE CASCADE;
