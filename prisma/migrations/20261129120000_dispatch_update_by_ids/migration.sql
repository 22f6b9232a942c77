-- A dispatch pass ended in `update jobs ... where id in (select id from eligible)`, which the
-- planner ran as a hash semi join over a sequential scan of the whole jobs table — every job the
-- platform has kept, finished ones included — to update the one or few jobs chosen (issue 41).
-- Measured on PGlite with 1,000 jobs in the table: the pass's execution 1.0–2.1 ms with the scan,
-- 0.7–1.1 ms by ids; and the scan grows with the table. The chosen ids are now looked up in the
-- primary key (`id = any(array(...))`), whatever the table holds. Otherwise unchanged from
-- 20261125000000_projects_batches.
CREATE OR REPLACE FUNCTION "dispatch_client_jobs"(p_client text, p_global int, p_now timestamptz)
RETURNS TABLE (job_id uuid, attempt int, seq bigint)
LANGUAGE sql VOLATILE AS $fn$
with places as (
  select least(
    coalesce((select max(max_concurrency) from runs where client_id = p_client and status = 'in_progress'), 0)
      - (select count(*) from jobs where client_id = p_client and status = 'processing' and dispatched_at is not null),
    p_global - (select count(*) from jobs where status = 'processing' and dispatched_at is not null)
  ) as free
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
returning id, attempt, seq;
$fn$;
