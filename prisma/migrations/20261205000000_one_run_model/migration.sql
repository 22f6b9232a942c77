-- Issue 62, one run model (docs/decisions/0036). A run of any kind is now opened by one insert
-- that names its kind; runs.kind keeps its default all the same, because during a rolling upgrade
-- the previous release still opens collection runs without naming it.

-- The engine's unit of work is a job of a run, whatever the run's kind: the two functions on every
-- job's path lose the "batch" of their names. Renamed in place (no body copied), so the function a
-- job runs through is the one 20261204000000 left.
ALTER FUNCTION "finish_batch_job"(uuid, int, text, timestamptz, int, text, text, int, text, text[], text[], boolean, int, text, uuid, text, jsonb)
  RENAME TO "finish_job";
ALTER FUNCTION "claim_batch_job"(uuid, int, text, timestamptz, timestamptz, uuid, timestamptz, int, int)
  RENAME TO "claim_job";

-- A rolling upgrade runs this migration while processes of the previous release still finish and
-- claim jobs by the old names: those names stay, as thin forwards, until the release after this one.
CREATE FUNCTION "finish_batch_job"(
  p_job uuid, p_attempt int,
  p_status text, p_completed_at timestamptz, p_status_code int, p_message text, p_error text, p_execution_ms int,
  p_block_reason text, p_protection_stack text[], p_rule_hits text[], p_is_success boolean, p_credits int,
  p_body text, p_entry_id uuid, p_mode text, p_details jsonb)
RETURNS TABLE (
  o_id uuid, o_run_id uuid, o_collection_id uuid, o_project_id uuid, o_client_id text, o_url text, o_custom_id text,
  o_mode text, o_status text, o_attempt int, o_reservation_id uuid, o_retries_attempted int, o_started_at timestamptz,
  o_run_kind text, o_run_state text, o_last_job boolean, o_page_webhook_url text)
LANGUAGE sql VOLATILE AS $fn$
  SELECT * FROM "finish_job"(p_job, p_attempt, p_status, p_completed_at, p_status_code, p_message, p_error, p_execution_ms,
    p_block_reason, p_protection_stack, p_rule_hits, p_is_success, p_credits, p_body, p_entry_id, p_mode, p_details)
$fn$;

CREATE FUNCTION "claim_batch_job"(
  p_job uuid, p_attempt int, p_worker text, p_now timestamptz, p_lease_until timestamptz,
  p_hold_id uuid, p_hold_until timestamptz, p_simple_cost int, p_browser_cost int)
RETURNS TABLE (
  o_id uuid, o_run_id uuid, o_collection_id uuid, o_project_id uuid, o_client_id text, o_url text, o_custom_id text,
  o_mode text, o_status text, o_attempt int, o_reservation_id uuid, o_retries_attempted int, o_started_at timestamptz,
  o_request jsonb, o_monthly_credits int, o_reclaimed boolean, o_over_quota boolean, o_charged int, o_held int, o_month text)
LANGUAGE sql VOLATILE AS $fn$
  SELECT * FROM "claim_job"(p_job, p_attempt, p_worker, p_now, p_lease_until, p_hold_id, p_hold_until, p_simple_cost, p_browser_cost)
$fn$;
