-- The probes of a viability run are charged against the client's monthly credits as the gateway
-- resolved them when the run was created (viability-analyzer cannot read plans; null = unlimited).
ALTER TABLE "viability_runs" ADD COLUMN "monthly_credits" INTEGER;
