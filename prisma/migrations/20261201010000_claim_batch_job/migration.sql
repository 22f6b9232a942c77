-- A batch job's claim in one statement (issue 41, decision 0029): the job started for the worker
-- (only the current attempt, only once, or again for the worker that already started it), and, for
-- a run with a monthly quota, the client's credit lock, the month's usage and the job's hold. It was
-- five statements in one transaction for every client with a quota.
--
-- Returns no row when the attempt no longer owns the job. Otherwise the job as claimed, its request
-- and its run's quota, and: `o_reclaimed` (its worker claimed it before: checked and held then),
-- `o_over_quota` (the quota cannot cover this job: nothing is held, and the caller finishes the job
-- as quota_exceeded in the same transaction, with the usage returned for its message), or the hold
-- taken (`o_reservation_id`). The usage is what creditUsageOf reads: the month's charged credits
-- plus the client's live holds; the lock is the key lockCreditAccount takes.
CREATE FUNCTION "claim_batch_job"(
  p_job uuid, p_attempt int, p_worker text, p_now timestamptz, p_lease_until timestamptz,
  p_hold_id uuid, p_hold_until timestamptz, p_simple_cost int, p_browser_cost int)
RETURNS TABLE (
  o_id uuid, o_run_id uuid, o_collection_id uuid, o_project_id uuid, o_client_id text, o_url text, o_custom_id text,
  o_mode text, o_status text, o_attempt int, o_reservation_id uuid, o_retries_attempted int, o_started_at timestamptz,
  o_request jsonb, o_monthly_credits int, o_reclaimed boolean, o_over_quota boolean, o_charged int, o_held int, o_month text)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  j record;
  v_cost int;
  v_month text := to_char(p_now at time zone 'UTC', 'YYYY-MM');
  v_charged int;
  v_held int;
  v_hold uuid;
BEGIN
  WITH before AS (SELECT id, started_at FROM jobs WHERE id = p_job FOR UPDATE)
  UPDATE jobs SET started_at = coalesce(jobs.started_at, p_now), lease_expires_at = p_lease_until, worker_id = p_worker
    FROM runs r, before b
   WHERE jobs.id = p_job AND b.id = jobs.id AND jobs.attempt = p_attempt AND jobs.status = 'processing' AND r.id = jobs.run_id
     AND (jobs.started_at IS NULL OR jobs.worker_id = p_worker)
     AND r.state IN ('running', 'cancelling')
  RETURNING jobs.id, jobs.run_id, jobs.collection_id, jobs.project_id, jobs.client_id, jobs.url, jobs.custom_id, jobs.mode,
    jobs.status, jobs.attempt, jobs.reservation_id, jobs.retries_attempted, jobs.started_at, jobs.request,
    r.monthly_credits, b.started_at IS NOT NULL AS reclaimed
  INTO j;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  IF NOT j.reclaimed AND j.monthly_credits IS NOT NULL THEN
    v_cost := CASE WHEN j.mode = 'browser' THEN p_browser_cost ELSE p_simple_cost END;
    PERFORM pg_advisory_xact_lock(hashtext('credits:' || j.client_id));
    SELECT coalesce((SELECT charged FROM credit_balances WHERE client_id = j.client_id AND month = v_month), 0)::int,
           coalesce((SELECT sum(credits) FROM credit_reservations
                      WHERE client_id = j.client_id AND month = v_month AND expires_at > p_now), 0)::int
      INTO v_charged, v_held;
    IF v_charged + v_held + v_cost > j.monthly_credits THEN
      RETURN QUERY SELECT j.id, j.run_id, j.collection_id, j.project_id, j.client_id, j.url, j.custom_id, j.mode, j.status,
        j.attempt, j.reservation_id, j.retries_attempted, j.started_at, j.request, j.monthly_credits, false, true,
        v_charged, v_held, v_month;
      RETURN;
    END IF;
    INSERT INTO credit_reservations (id, client_id, month, credits, expires_at, created_at)
      VALUES (p_hold_id, j.client_id, v_month, v_cost, p_hold_until, p_now);
    UPDATE jobs SET reservation_id = p_hold_id WHERE id = j.id;
    v_hold := p_hold_id;
  END IF;

  RETURN QUERY SELECT j.id, j.run_id, j.collection_id, j.project_id, j.client_id, j.url, j.custom_id, j.mode, j.status,
    j.attempt, coalesce(v_hold, j.reservation_id), j.retries_attempted, j.started_at, j.request, j.monthly_credits,
    j.reclaimed, false, v_charged, v_held, v_month;
END
$fn$;
