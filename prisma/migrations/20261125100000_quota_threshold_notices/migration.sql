-- One row per client, month and threshold (80, 100) once the client's used credits have reached
-- it: the insert that creates the row is the one that announces the ops event, so the event goes
-- out once per threshold and month however many replicas see the crossing.
CREATE TABLE "quota_threshold_notices" (
    "client_id" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "threshold_percent" INTEGER NOT NULL,
    "used" INTEGER NOT NULL,
    "credit_limit" INTEGER NOT NULL,
    "reached_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "quota_threshold_notices_pkey" PRIMARY KEY ("client_id","month","threshold_percent")
);
