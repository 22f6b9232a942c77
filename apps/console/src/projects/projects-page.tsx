import { useState } from 'preact/hooks';
import { answer, api } from '../api/api-client';
import { DeliveryLog } from '../collections/run-page';
import { DataTable, Pager, useCursorPages } from '../ui/data-table';
import { useAction, useApi } from '../ui/use-api';
import { Field, formatTime, ProblemNotice, Progress } from '../ui/widgets';

/** Projects with their jobs by status and credits, their controls, their jobs, and a batch by id. */
export function ProjectsPage() {
  const summary = useApi(() => answer(api.GET('/v1/projects/summary')), []);
  const [open, setOpen] = useState<string | null>(null);
  const transition = useAction(async (projectId: string, to: 'pause' | 'resume' | 'close') => {
    const path = { project_id: projectId };
    if (to === 'pause') await answer(api.PUT('/v1/projects/{project_id}/pause', { params: { path } }));
    if (to === 'resume') await answer(api.PUT('/v1/projects/{project_id}/resume', { params: { path } }));
    if (to === 'close') await answer(api.PUT('/v1/projects/{project_id}/close', { params: { path } }));
    summary.reload();
  });
  const items = summary.data?.items ?? [];
  return (
    <div class="page">
      <h1>Projects and batches</h1>
      <ProblemNotice problem={summary.problem ?? transition.problem} />
      {summary.data && items.length === 0 && <p class="hint">No project yet: create one with POST /v1/projects, then batches in it.</p>}
      {items.map((p) => (
        <article class="card" aria-labelledby={`project-${p.project_id}`}>
          <h2 id={`project-${p.project_id}`}>
            {p.name} <span class="badge">{p.status}</span>
          </h2>
          <p>
            {Object.entries(p.jobs)
              .map(([status, n]) => `${status} ${n}`)
              .join(' · ')}
          </p>
          <p>
            Credits this month: {p.credits_used_this_month}
            {p.monthly_credit_cap !== null ? ` of ${p.monthly_credit_cap}` : ''} ·{' '}
            {p.has_capacity ? 'has capacity' : `no capacity (${p.capacity_reason ?? ''})`}
          </p>
          {p.monthly_credit_cap !== null && (
            <Progress value={p.credits_used_this_month} max={p.monthly_credit_cap} label={`Credits of ${p.name}`} />
          )}
          <div class="form-actions">
            {p.status === 'active' && (
              <button type="button" onClick={() => void transition.run(p.project_id, 'pause')}>
                Pause
              </button>
            )}
            {p.status === 'paused' && (
              <button type="button" onClick={() => void transition.run(p.project_id, 'resume')}>
                Resume
              </button>
            )}
            {p.status !== 'closed' && (
              <button
                type="button"
                onClick={() => window.confirm(`Close ${p.name}? Its batches are cancelled.`) && void transition.run(p.project_id, 'close')}
              >
                Close
              </button>
            )}
            <button
              type="button"
              aria-expanded={open === p.project_id}
              onClick={() => setOpen(open === p.project_id ? null : p.project_id)}
            >
              {open === p.project_id ? 'Hide jobs' : 'Show jobs'}
            </button>
          </div>
          {open === p.project_id && <ProjectJobs projectId={p.project_id} />}
        </article>
      ))}
      <BatchLookup />
    </div>
  );
}

function ProjectJobs({ projectId }: { projectId: string }) {
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const jobs = useApi(
    () => answer(api.GET('/v1/jobs', { params: { query: { project_id: projectId, cursor, limit: 25 } } })),
    [projectId, cursor],
  );
  return (
    <div>
      <ProblemNotice problem={jobs.problem} />
      <DataTable
        caption="Jobs of the project"
        captionHidden
        rows={jobs.data?.items ?? []}
        columns={[
          { label: 'Batch', cell: (job) => job.batch_id.slice(0, 8) },
          { label: 'URL', rowHeader: true, className: 'url', cell: (job) => job.url },
          { label: 'Status', cell: (job) => job.status },
          { label: 'HTTP', cell: (job) => job.status_code ?? '—' },
          { label: 'Credits', cell: (job) => job.credits },
          { label: 'Queued', cell: (job) => formatTime(job.queued_at) },
        ]}
      />
      <Pager label="Project job pages" pages={pages} hasMore={jobs.data?.has_more ?? false} nextCursor={jobs.data?.cursor_next} />
    </div>
  );
}

function BatchLookup() {
  const [batchId, setBatchId] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  return (
    <section class="card" aria-labelledby="batch-lookup-title">
      <h2 id="batch-lookup-title">A batch</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setShown(batchId.trim());
        }}
      >
        <Field id="batch-id" label="Batch id">
          <input id="batch-id" value={batchId} onInput={(e) => setBatchId(e.currentTarget.value)} />
        </Field>
        <button type="submit">Show</button>
      </form>
      {shown && <BatchView batchId={shown} />}
    </section>
  );
}

function BatchView({ batchId }: { batchId: string }) {
  const path = { batch_id: batchId };
  const batch = useApi(() => answer(api.GET('/v1/batches/{batch_id}', { params: { path } })), [batchId], {
    pollMs: 2000,
    keepPolling: (b) => b.status === 'in_progress',
  });
  const log = useApi(
    async () => (batch.data?.callback_url ? answer(api.GET('/v1/batches/{batch_id}/webhook-deliveries', { params: { path } })) : null),
    [batchId, batch.data?.status, batch.data?.callback_url],
  );
  const redeliver = useAction(async () => {
    await answer(api.POST('/v1/batches/{batch_id}/webhook-deliveries/redeliver', { params: { path } }));
    log.reload();
  });
  const b = batch.data;
  return (
    <div>
      <ProblemNotice problem={batch.problem} />
      {b && (
        <>
          <p>
            <span class="badge">{b.state}</span> {b.success_requests} succeeded, {b.failed_requests} failed, {b.timeout_requests} timed out,{' '}
            {b.cancelled_requests} cancelled of {b.total_requests}
          </p>
          <Progress
            value={b.success_requests + b.failed_requests + b.timeout_requests + b.cancelled_requests}
            max={b.total_requests}
            label="Batch jobs finished"
          />
          {b.callback_url && (
            <DeliveryLog
              log={log.data}
              problem={log.problem ?? redeliver.problem}
              pending={redeliver.pending}
              onRedeliver={() => void redeliver.run()}
            />
          )}
        </>
      )}
    </div>
  );
}
