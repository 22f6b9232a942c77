-- Per-client monthly charged credits, kept in step with credit_ledger_entries by billing-meter.
CREATE TABLE "credit_balances" (
    "client_id" TEXT NOT NULL,
    "month" CHAR(7) NOT NULL,
    "charged" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "credit_balances_pkey" PRIMARY KEY ("client_id","month")
);

-- Backfill from entries recorded before this table existed.
INSERT INTO "credit_balances" ("client_id", "month", "charged")
SELECT "client_id", "month", SUM("credits")::INTEGER FROM "credit_ledger_entries" GROUP BY "client_id", "month";
