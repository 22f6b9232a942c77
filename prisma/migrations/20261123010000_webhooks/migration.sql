-- Run-completion webhooks (issue 6): delivery state on the outbox, per-client secrets, delivery log.
ALTER TABLE "webhook_outbox" ALTER COLUMN "next_attempt_at" DROP NOT NULL;
ALTER TABLE "webhook_outbox" ADD COLUMN "lease_until" TIMESTAMPTZ(3);
ALTER TABLE "webhook_outbox" ADD COLUMN "manual" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "webhook_outbox" ADD COLUMN "last_status_code" INTEGER;
ALTER TABLE "webhook_outbox" ADD COLUMN "last_error" TEXT;

CREATE TABLE "webhook_secrets" (
    "client_id" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotated_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_secrets_pkey" PRIMARY KEY ("client_id")
);

CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "outbox_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "manual" BOOLEAN NOT NULL DEFAULT false,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "latency_ms" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "webhook_deliveries_run_id_attempt_idx" ON "webhook_deliveries"("run_id", "attempt");
