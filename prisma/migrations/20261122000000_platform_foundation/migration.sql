-- Platform foundation: clients and tokens (gateway), rate-limit buckets (gateway),
-- credit ledger and reservations (billing-meter).

CREATE TABLE "clients" (
    "id" TEXT NOT NULL,
    "plan" TEXT NOT NULL,
    "features" TEXT[],
    "is_admin" BOOLEAN NOT NULL DEFAULT false,
    "rate_limit_per_minute" INTEGER,
    "monthly_credits" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "clients_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "rate_limit_buckets" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "rate_limit_buckets_pkey" PRIMARY KEY ("key")
);

CREATE TABLE "credit_ledger_entries" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "month" CHAR(7) NOT NULL,
    "credits" INTEGER NOT NULL,
    "mode" TEXT NOT NULL,
    "charge_key" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_ledger_entries_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "credit_reservations" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "month" CHAR(7) NOT NULL,
    "credits" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_reservations_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");
CREATE INDEX "api_tokens_client_id_idx" ON "api_tokens"("client_id");
CREATE UNIQUE INDEX "credit_ledger_entries_charge_key_key" ON "credit_ledger_entries"("charge_key");
CREATE INDEX "credit_ledger_entries_client_id_month_idx" ON "credit_ledger_entries"("client_id", "month");
CREATE INDEX "credit_reservations_client_id_month_idx" ON "credit_reservations"("client_id", "month");

ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE CASCADE;
