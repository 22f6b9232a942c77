-- Issue 67, a crawl lists the site's llms.txt (decision 0042). A nullable column only: a crawl
-- stored before reads as it did (llms_txt null: not looked for).

-- Owned by site-discovery: what the site's /llms.txt said when the crawl started (or its plan was
-- made), as the map reports it (LlmsTxtReport).
ALTER TABLE "crawls" ADD COLUMN "llms_txt" jsonb;
