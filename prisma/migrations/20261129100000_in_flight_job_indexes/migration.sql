-- The jobs in flight, found without reading the waiting ones (issue 41). dispatch_client_jobs
-- counts the platform's, the client's and each project's dispatched jobs (status 'processing',
-- dispatched_at set) on every pass, and a waiting job is 'processing' too. No index had both
-- conditions, so each count read every waiting job: a pass cost O(jobs waiting) — measured on
-- PGlite, a pass with 8 jobs in flight took 2.3 ms with 1,000 jobs waiting and 11–13 ms with 20,000,
-- and a run makes one pass per job. These partial indexes hold only the jobs in flight (at most
-- the concurrency): 1.7 and 1.5–2.7 ms. Partial, so the planner needs no statistics to know they
-- are small (composite indexes with dispatched_at were not chosen). Prisma's schema cannot state a
-- partial index: test/support/schema-shape.ts lists these three, and the schema test checks them.
CREATE INDEX "jobs_in_flight_idx" ON "jobs"("dispatched_at") WHERE status = 'processing' AND dispatched_at IS NOT NULL;
CREATE INDEX "jobs_in_flight_client_id_idx" ON "jobs"("client_id") WHERE status = 'processing' AND dispatched_at IS NOT NULL;
CREATE INDEX "jobs_in_flight_project_id_idx" ON "jobs"("project_id") WHERE status = 'processing' AND dispatched_at IS NOT NULL;
