-- A crawl's page that is another page (issue 61: it answered a redirect, or its rel=canonical names
-- another URL of its host) ends `cancelled`, uncharged, through the same completion as every job.
-- finish_batch_job counted any unsuccessful end as failed; a `cancelled` end is now also counted in
-- the run's cancelled_requests, as a cancel's never-started jobs are (total = success + failed +
-- timeout, cancelled among the failed). The function is otherwise 20261201000000's.
CREATE OR REPLACE FUNCTION "finish_batch_job"(
  p_job uuid, p_attempt int,
  p_status text, p_completed_at timestamptz, p_status_code int, p_message text, p_error text, p_execution_ms int,
  p_block_reason text, p_protection_stack text[], p_rule_hits text[], p_is_success boolean, p_credits int,
  p_body text, p_entry_id uuid, p_mode text, p_details jsonb)
RETURNS TABLE (
  o_id uuid, o_run_id uuid, o_collection_id uuid, o_project_id uuid, o_client_id text, o_url text, o_custom_id text,
  o_mode text, o_status text, o_attempt int, o_reservation_id uuid, o_retries_attempted int, o_started_at timestamptz,
  o_run_kind text, o_run_state text, o_last_job boolean, o_page_webhook_url text)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  j record;
  r record;
  v_tail text;
  v_body text;
  v_month char(7) := to_char(p_completed_at at time zone 'UTC', 'YYYY-MM');
BEGIN
  UPDATE jobs SET status = p_status, completed_at = p_completed_at, status_code = p_status_code, message = p_message,
      error = p_error, execution_time_ms = p_execution_ms, block_reason = p_block_reason, protection_stack = p_protection_stack,
      rule_hits = p_rule_hits, is_success = p_is_success, credits = p_credits, lease_expires_at = null, reservation_id = null
    FROM (SELECT id, run_id, collection_id, project_id, client_id, url, custom_id, mode, status, attempt, reservation_id,
                 retries_attempted, started_at
            FROM jobs WHERE id = p_job FOR UPDATE) before
   WHERE jobs.id = before.id
     AND (p_attempt IS NULL OR (before.status = 'processing' AND before.attempt = p_attempt AND before.started_at IS NOT NULL))
  RETURNING before.* INTO j;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  v_tail := ',"url":' || to_json(j.url)::text || ',"custom_id":' || coalesce(to_json(j.custom_id)::text, 'null')
    || ',"status":' || to_json(p_status)::text || '}';
  v_body := CASE WHEN p_body = '{}' THEN '{' || substr(v_tail, 2) ELSE left(p_body, -1) || v_tail END;
  INSERT INTO job_results (job_id, run_id, body, size_bytes, completed_at)
    VALUES (p_job, j.run_id, v_body, octet_length(v_body), p_completed_at)
    ON CONFLICT (job_id) DO NOTHING;

  IF j.reservation_id IS NOT NULL OR p_credits > 0 THEN
    PERFORM pg_advisory_xact_lock(hashtext('credits:' || j.client_id));
    IF j.reservation_id IS NOT NULL THEN
      DELETE FROM credit_reservations WHERE id = j.reservation_id;
    END IF;
    IF p_credits > 0 THEN
      WITH entry AS (
        INSERT INTO credit_ledger_entries (id, client_id, month, credits, mode, charge_key, details, occurred_at, project_id)
        VALUES (p_entry_id, j.client_id, v_month, p_credits, p_mode, 'batch-job:' || p_job,
                p_details || jsonb_build_object('run_id', j.run_id, 'job_id', p_job), p_completed_at, j.project_id)
        ON CONFLICT (charge_key) DO NOTHING
        RETURNING client_id, month, credits
      )
      INSERT INTO credit_balances (client_id, month, charged) SELECT client_id, month, credits FROM entry
        ON CONFLICT (client_id, month) DO UPDATE SET charged = credit_balances.charged + excluded.charged;
      IF j.project_id IS NOT NULL THEN
        UPDATE projects SET credits_used = CASE WHEN credits_month = v_month THEN credits_used + p_credits ELSE p_credits END,
            credits_month = v_month
          WHERE id = j.project_id;
      END IF;
    END IF;
  END IF;

  UPDATE runs SET success_requests = success_requests + (CASE WHEN p_is_success THEN 1 ELSE 0 END),
      failed_requests = failed_requests + (CASE WHEN NOT p_is_success AND p_status <> 'timeout' THEN 1 ELSE 0 END),
      timeout_requests = timeout_requests + (CASE WHEN p_status = 'timeout' THEN 1 ELSE 0 END),
      cancelled_requests = cancelled_requests + (CASE WHEN p_status = 'cancelled' THEN 1 ELSE 0 END),
      credits_charged = credits_charged + p_credits
    WHERE id = j.run_id
  RETURNING status, kind, state, success_requests + failed_requests + timeout_requests AS done, total_requests AS total,
    CASE WHEN page_webhooks THEN callback_url END AS page_webhook_url
  INTO r;

  RETURN QUERY SELECT j.id, j.run_id, j.collection_id, j.project_id, j.client_id, j.url, j.custom_id, j.mode, j.status,
    j.attempt, j.reservation_id, j.retries_attempted, j.started_at, r.kind, r.state,
    coalesce(r.status = 'in_progress' AND r.done = r.total, false), r.page_webhook_url;
END
$fn$;
