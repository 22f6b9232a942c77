-- Viability tests (spec 2.15, 3.4): a run per request, a row per URL that is both its queue entry
-- (state + lease) and its result. Owned by viability-analyzer.
CREATE TABLE "viability_runs" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "depth" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "total_urls" INTEGER NOT NULL,
    "completed_urls" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "viability_runs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "viability_runs_client_id_created_at_idx" ON "viability_runs"("client_id", "created_at");

CREATE TABLE "viability_urls" (
    "run_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "result" JSONB,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "viability_urls_pkey" PRIMARY KEY ("run_id","position")
);
CREATE INDEX "viability_urls_state_lease_until_idx" ON "viability_urls"("state", "lease_until");
ALTER TABLE "viability_urls" ADD CONSTRAINT "viability_urls_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "viability_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
