-- Per-page crawl webhooks (issue 39). An outbox row now announces a subject: its run (the run's
-- completion webhook, subject_id = run_id, one per run as before) or one job of the run (a
-- `crawl.page` webhook, subject_id = job_id, one per page however often its completion is
-- retried). Job and run ids are both UUIDs, so one unique key covers both; run_id stays indexed
-- for a crawl's delivery listing.
ALTER TABLE "webhook_outbox" ADD COLUMN "subject_id" UUID;
UPDATE "webhook_outbox" SET "subject_id" = "run_id";
ALTER TABLE "webhook_outbox" ALTER COLUMN "subject_id" SET NOT NULL;
DROP INDEX "webhook_outbox_run_id_key";
CREATE UNIQUE INDEX "webhook_outbox_subject_id_key" ON "webhook_outbox"("subject_id");
CREATE INDEX "webhook_outbox_run_id_created_at_idx" ON "webhook_outbox"("run_id", "created_at");

-- A crawl asked for a `crawl.page` webhook per page that ran.
ALTER TABLE "runs" ADD COLUMN "page_webhooks" BOOLEAN NOT NULL DEFAULT false;
