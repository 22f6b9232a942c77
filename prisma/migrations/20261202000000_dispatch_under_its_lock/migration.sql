-- A dispatch pass in one statement (issue 41, decision 0030): the platform-wide dispatch lock is
-- taken by the function itself, then the pass runs (dispatch_client_jobs, unchanged). Alone, the
-- statement is its own transaction, so the lock is held until it commits, as before. The embedded
-- database now runs on a thread of its own: a pass that was BEGIN, the lock, the pass and COMMIT
-- held every other statement back while each answer crossed back to the event loop; now it is one
-- request. PL/pgSQL, so that the pass's statement takes its snapshot after the lock is granted
-- (a volatile function's statements each take a new one): it sees every pass committed before it.
CREATE FUNCTION "dispatch_client_jobs_locked"(p_client text, p_global int, p_now timestamptz)
RETURNS TABLE (job_id uuid, attempt int, seq bigint, queued bigint)
LANGUAGE plpgsql VOLATILE AS $fn$
begin
  perform pg_advisory_xact_lock(hashtext('batch-dispatch'));
  return query select d.job_id, d.attempt, d.seq, d.queued from dispatch_client_jobs(p_client, p_global, p_now) d;
end
$fn$;
