-- A dispatch pass now also says how many of the client's jobs are on the queue, not yet started by
-- a worker, once it has published (`queued`, on every row it returns). The dispatcher spaces a
-- client's passes while that backlog can keep its workers busy (JobDispatcher): a run of 1,000 jobs
-- made one pass per finished job, each a transaction of its own (issue 41). The count reads the
-- in-flight partial index (jobs_in_flight_client_id_idx); the rest is unchanged from
-- 20261129120000_dispatch_update_by_ids. The result's columns change, so the function is dropped
-- and created again.
DROP FUNCTION IF EXISTS "dispatch_client_jobs"(text, int, timestamptz);
CREATE FUNCTION "dispatch_client_jobs"(p_client text, p_global int, p_now timestamptz)
RETURNS TABLE (job_id uuid, attempt int, seq bigint, queued bigint)
LANGUAGE sql VOLATILE AS $fn$
with places as (
  select least(
    coalesce((select max(max_concurrency) from runs where client_id = p_client and status = 'in_progress'), 0)
      - (select count(*) from jobs where client_id = p_client and status = 'processing' and dispatched_at is not null),
    p_global - (select count(*) from jobs where status = 'processing' and dispatched_at is not null)
  ) as free
),
-- The client's jobs on the queue that no worker has started yet (read in the same in-flight index).
waiting_on_queue as (
  select count(*) as n from jobs where client_id = p_client and status = 'processing' and dispatched_at is not null and started_at is null
),
project_room as (
  select p.id,
    case when p.max_concurrent_jobs is null then null
         else p.max_concurrent_jobs - (select count(*) from jobs f where f.project_id = p.id and f.status = 'processing' and f.dispatched_at is not null)
    end as slots,
    case when p.monthly_credit_cap is null then null
         else p.monthly_credit_cap
           - case when p.credits_month = to_char(p_now at time zone 'UTC', 'YYYY-MM') then p.credits_used else 0 end
           - coalesce((select sum(case when f.mode = 'browser' then 5 else 1 end) from jobs f
                        where f.project_id = p.id and f.status = 'processing' and f.dispatched_at is not null), 0)
    end as budget
  from projects p where p.client_id = p_client and p.status = 'active'
),
-- Jobs outside projects (collection runs): the cheap path, in insertion order.
loose as (
  select j.id, j.seq from jobs j join runs r on r.id = j.run_id
  where j.client_id = p_client and j.status = 'processing' and j.dispatched_at is null and j.project_id is null and r.state = 'running'
  order by j.seq limit (select greatest(free, 0) from places)
),
-- Jobs of active projects: per project, its first waiting jobs in insertion order (no more than
-- the places or its slots: a pass never dispatches more), numbered and priced against its room.
-- Bounded per project, so a pass costs the same at the start of a 100,000-job batch as at its end.
grouped as (
  select c.id, c.seq, c.project_id,
    row_number() over (partition by c.project_id order by c.seq) as nth,
    sum(c.cost) over (partition by c.project_id order by c.seq) as cost_so_far
  from project_room pr
  cross join lateral (
    select j.id, j.seq, j.project_id, case when j.mode = 'browser' then 5 else 1 end as cost
    from jobs j join runs r on r.id = j.run_id
    where j.project_id = pr.id and j.status = 'processing' and j.dispatched_at is null and r.state = 'running'
    order by j.seq
    limit greatest(least((select free from places), coalesce(pr.slots, (select free from places))), 0)
  ) c
),
eligible as (
  select id, seq from (
    select id, seq from loose
    union all
    select g.id, g.seq from grouped g join project_room pr on pr.id = g.project_id
    where (pr.slots is null or g.nth <= pr.slots) and (pr.budget is null or g.cost_so_far <= pr.budget)
  ) candidates order by seq limit (select greatest(free, 0) from places)
)
update jobs set dispatched_at = p_now where id = any(array(select id from eligible))
returning id, attempt, seq, (select n from waiting_on_queue) + (select count(*) from eligible);
$fn$;
