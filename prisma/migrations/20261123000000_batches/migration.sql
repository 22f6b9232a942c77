-- Asynchronous batches (issue 5): collections, idempotency keys, runs, jobs, results, webhook outbox.
CREATE TABLE "collections" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "callback_url" TEXT,
    "requests" JSONB NOT NULL DEFAULT '[]',
    "request_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3),

    CONSTRAINT "collections_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "collections_client_id_created_at_idx" ON "collections"("client_id", "created_at");

CREATE TABLE "idempotency_keys" (
    "client_id" TEXT NOT NULL,
    "key" VARCHAR(200) NOT NULL,
    "fingerprint" CHAR(64) NOT NULL,
    "status_code" INTEGER,
    "response" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("client_id","key")
);
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

CREATE TABLE "runs" (
    "id" UUID NOT NULL,
    "collection_id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "total_requests" INTEGER NOT NULL,
    "success_requests" INTEGER NOT NULL DEFAULT 0,
    "failed_requests" INTEGER NOT NULL DEFAULT 0,
    "timeout_requests" INTEGER NOT NULL DEFAULT 0,
    "credits_charged" INTEGER NOT NULL DEFAULT 0,
    "max_concurrency" INTEGER NOT NULL,
    "monthly_credits" INTEGER,
    "job_ids" UUID[] DEFAULT ARRAY[]::UUID[],
    "callback_url" TEXT,
    "callback_status" TEXT,
    "success_criterion" JSONB,
    "all_jobs_persisted" BOOLEAN,
    "created_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "runs_collection_id_created_at_idx" ON "runs"("collection_id", "created_at");
CREATE INDEX "runs_client_id_status_idx" ON "runs"("client_id", "status");

CREATE TABLE "jobs" (
    "id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "collection_id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "custom_id" TEXT,
    "request" JSONB NOT NULL,
    "mode" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'processing',
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "retries_attempted" INTEGER NOT NULL DEFAULT 0,
    "worker_id" TEXT,
    "reservation_id" UUID,
    "queued_at" TIMESTAMPTZ(3) NOT NULL,
    "dispatched_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "lease_expires_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "status_code" INTEGER,
    "message" TEXT,
    "error" TEXT,
    "execution_time_ms" INTEGER,
    "block_reason" TEXT,
    "protection_stack" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "rule_hits" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "is_success" BOOLEAN,
    "credits" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "jobs_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "jobs_seq_key" ON "jobs"("seq");
CREATE INDEX "jobs_run_id_seq_idx" ON "jobs"("run_id", "seq");
CREATE INDEX "jobs_run_id_completed_at_seq_idx" ON "jobs"("run_id", "completed_at", "seq");
CREATE INDEX "jobs_client_id_status_seq_idx" ON "jobs"("client_id", "status", "seq");
CREATE INDEX "jobs_status_lease_expires_at_idx" ON "jobs"("status", "lease_expires_at");

CREATE TABLE "job_results" (
    "job_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "body" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "completed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "job_results_pkey" PRIMARY KEY ("job_id")
);
CREATE INDEX "job_results_completed_at_idx" ON "job_results"("completed_at");

CREATE TABLE "webhook_outbox" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "callback_url" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_outbox_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "webhook_outbox_run_id_key" ON "webhook_outbox"("run_id");
CREATE INDEX "webhook_outbox_status_next_attempt_at_idx" ON "webhook_outbox"("status", "next_attempt_at");
