-- Country proxy approvals (spec 3.5, operator contract §3): one row per client and country.
CREATE TABLE "country_proxy_requests" (
    "client_id" TEXT NOT NULL,
    "country_code" CHAR(2) NOT NULL,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "note" TEXT,
    "requested_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by" TEXT,

    CONSTRAINT "country_proxy_requests_pkey" PRIMARY KEY ("client_id","country_code")
);
CREATE INDEX "country_proxy_requests_status_requested_at_idx" ON "country_proxy_requests"("status", "requested_at");
