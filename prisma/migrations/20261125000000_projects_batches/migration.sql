-- Projects and batches (issue 19, decision 0014): a batch is a run of kind 'batch' on the same job
-- engine; projects group batches and gate their dispatch.
CREATE TABLE "projects" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "defaults" JSONB NOT NULL DEFAULT '{}',
    "callback_url" TEXT,
    "monthly_credit_cap" INTEGER,
    "max_concurrent_jobs" INTEGER,
    "credits_month" CHAR(7),
    "credits_used" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "projects_client_id_created_at_id_idx" ON "projects"("client_id", "created_at", "id");

-- Existing runs are collection runs, running; a batch has no stored collection.
ALTER TABLE "runs" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'collection';
ALTER TABLE "runs" ADD COLUMN "state" TEXT NOT NULL DEFAULT 'running';
ALTER TABLE "runs" ADD COLUMN "project_id" UUID;
ALTER TABLE "runs" ADD COLUMN "name" TEXT;
ALTER TABLE "runs" ADD COLUMN "cancelled_requests" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "runs" ALTER COLUMN "collection_id" DROP NOT NULL;
CREATE INDEX "runs_project_id_state_idx" ON "runs"("project_id", "state");

ALTER TABLE "jobs" ADD COLUMN "project_id" UUID;
ALTER TABLE "jobs" ALTER COLUMN "collection_id" DROP NOT NULL;
CREATE INDEX "jobs_client_id_seq_idx" ON "jobs"("client_id", "seq");
CREATE INDEX "jobs_project_id_status_seq_idx" ON "jobs"("project_id", "status", "seq");

ALTER TABLE "credit_ledger_entries" ADD COLUMN "project_id" UUID;

-- Dispatch now reads the run's state and its project: only jobs of running runs whose project (if
-- any) is active are dispatched, a project's jobs in flight stay within max_concurrent_jobs, and
-- its month's charged credits plus the most its jobs in flight can cost stay within
-- monthly_credit_cap (each waiting job counted at its mode's price, in order: 5 for browser, 1 otherwise, the
-- prices of CREDIT_COST in libs/plans). Pause and cancel
-- are therefore held by the database: every replica's next pass, and a restart, read them.
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
update jobs set dispatched_at = p_now where id in (select id from eligible)
returning id, attempt, seq;
$fn$;
