import { useState } from 'preact/hooks';
import { answer, api, type Schemas } from '../api/api-client';
import { creditsText, ResultView } from '../results/result-view';
import { DataTable, Pager, useCursorPages } from '../ui/data-table';
import { useAction, useApi } from '../ui/use-api';
import { formatTime, InlineSelect, ProblemNotice, Progress } from '../ui/widgets';

type Run = Schemas['RunView'];
const JOB_STATUSES = ['processing', 'completed', 'failed', 'timeout'] as const;

/** A run: live progress while it runs, its jobs page by page, a job's result, its webhook log. */
export function RunPage({ collectionId, runId }: { collectionId: string; runId: string }) {
  const path = { collection_id: collectionId, run_id: runId };
  const run = useApi<Run>(
    () => answer(api.GET('/v1/async/collections/{collection_id}/runs/{run_id}', { params: { path } })),
    [collectionId, runId],
    {
      pollMs: 1000,
      keepPolling: (r) => r.status === 'in_progress',
    },
  );
  const cancel = useAction(async () => {
    await answer(api.POST('/v1/async/collections/{collection_id}/runs/{run_id}/cancel', { params: { path } }));
    run.reload();
  });
  const r = run.data;
  const done = r ? r.success_requests + r.failed_requests + r.timeout_requests + r.cancelled_requests : 0;
  return (
    <div class="page">
      <p>
        <a href={`#/collections/${collectionId}`}>← Collection</a>
      </p>
      <h1>Run {runId}</h1>
      <ProblemNotice problem={run.problem} />
      {r && (
        <>
          <p>
            <span class={`badge ${r.status === 'completed' ? 'badge-ok' : 'badge-busy'}`} data-testid="run-status">
              {r.status}
            </span>{' '}
            started {formatTime(r.created_at)} · {creditsText(r.credits_charged ?? 0)} charged
          </p>
          <Progress value={done} max={r.total_requests} label="Jobs finished" />
          <dl class="counters">
            <div>
              <dt>Succeeded</dt>
              <dd data-testid="count-success">{r.success_requests}</dd>
            </div>
            <div>
              <dt>Failed</dt>
              <dd data-testid="count-failed">{r.failed_requests}</dd>
            </div>
            <div>
              <dt>Timed out</dt>
              <dd>{r.timeout_requests}</dd>
            </div>
            <div>
              <dt>Cancelled</dt>
              <dd>{r.cancelled_requests}</dd>
            </div>
            <div>
              <dt>Total</dt>
              <dd>{r.total_requests}</dd>
            </div>
          </dl>
          {r.status === 'in_progress' && (
            <button type="button" disabled={cancel.pending} onClick={() => void cancel.run()}>
              Cancel the run
            </button>
          )}
          <ProblemNotice problem={cancel.problem} />
          <JobsTable collectionId={collectionId} runId={runId} refreshKey={done} />
          {r.callback_url && <WebhookLog collectionId={collectionId} runId={runId} refreshKey={`${r.status}:${r.callback_status}`} />}
        </>
      )}
    </div>
  );
}

function JobsTable({ collectionId, runId, refreshKey }: { collectionId: string; runId: string; refreshKey: number }) {
  const [statuses, setStatuses] = useState<string[]>([]);
  const [order, setOrder] = useState<'asc' | 'desc'>('asc');
  const [orderBy, setOrderBy] = useState<'id' | 'completed_at'>('id');
  const [limit, setLimit] = useState(25);
  // datetime-local is the browser's local time; the API takes an ISO time (sent in UTC).
  const [since, setSince] = useState('');
  const sinceIso = since && !Number.isNaN(new Date(since).getTime()) ? new Date(since).toISOString() : undefined;
  const pages = useCursorPages();
  const [selected, setSelected] = useState<string | null>(null);
  const cursor = pages.cursor;
  const jobs = useApi(
    () =>
      answer(
        api.GET('/v1/async/collections/{collection_id}/runs/{run_id}/jobs', {
          params: {
            path: { collection_id: collectionId, run_id: runId },
            query: {
              cursor,
              limit,
              order_by: orderBy,
              order_dir: order,
              ...(statuses.length > 0 ? { status_filter: statuses.join(',') } : {}),
              ...(sinceIso ? { since_completed_at: sinceIso } : {}),
            },
          },
        }),
      ),
    [collectionId, runId, cursor, limit, order, orderBy, statuses.join(','), sinceIso, refreshKey],
  );
  const restart = pages.restart;
  return (
    <section aria-labelledby="jobs-title">
      <h2 id="jobs-title">Jobs</h2>
      <fieldset class="checks">
        <legend>Filter and order</legend>
        {JOB_STATUSES.map((status) => (
          <label class="check">
            <input
              type="checkbox"
              checked={statuses.includes(status)}
              onChange={(e) => {
                setStatuses(e.currentTarget.checked ? [...statuses, status] : statuses.filter((s) => s !== status));
                restart();
              }}
            />
            {status}
          </label>
        ))}
        <InlineSelect
          id="jobs-order-by"
          label="Order by"
          value={orderBy}
          options={[
            ['id', 'submission'],
            ['completed_at', 'completion'],
          ]}
          onChange={(v) => {
            setOrderBy(v as typeof orderBy);
            restart();
          }}
        />
        <InlineSelect
          id="jobs-order"
          label="Direction"
          value={order}
          options={[
            ['asc', 'ascending'],
            ['desc', 'descending'],
          ]}
          onChange={(v) => {
            setOrder(v as typeof order);
            restart();
          }}
        />
        <label class="check" for="jobs-since">
          Completed since
          <input
            id="jobs-since"
            type="datetime-local"
            value={since}
            onChange={(e) => {
              setSince(e.currentTarget.value);
              restart();
            }}
          />
        </label>
        <InlineSelect
          id="jobs-limit"
          label="Per page"
          value={String(limit)}
          options={[10, 25, 100, 500].map((n) => [String(n), String(n)])}
          onChange={(v) => {
            setLimit(Number(v));
            restart();
          }}
        />
      </fieldset>
      <ProblemNotice problem={jobs.problem} />
      <DataTable
        caption="Jobs of the run"
        captionHidden
        rows={jobs.data?.items ?? []}
        rowProps={(job) => ({ class: selected === job.job_public_id ? 'selected' : undefined })}
        columns={[
          { label: 'URL', rowHeader: true, className: 'url', cell: (job) => job.url },
          { label: 'Status', cell: (job) => job.status },
          { label: 'Outcome', cell: (job) => job.outcome ?? '—' },
          { label: 'HTTP', cell: (job) => job.status_code ?? '—' },
          { label: 'ms', cell: (job) => job.execution_time_ms ?? '—' },
          { label: 'Block', cell: (job) => job.block_reason ?? '' },
          {
            label: 'Result',
            cell: (job) =>
              job.status !== 'processing' && (
                <button type="button" onClick={() => setSelected(job.job_public_id)} aria-label={`View the result of ${job.url}`}>
                  View
                </button>
              ),
          },
        ]}
      />
      <Pager label="Job pages" pages={pages} hasMore={jobs.data?.has_more ?? false} nextCursor={jobs.data?.cursor_next} />
      {selected && <JobResult collectionId={collectionId} runId={runId} jobId={selected} />}
    </section>
  );
}

function JobResult({ collectionId, runId, jobId }: { collectionId: string; runId: string; jobId: string }) {
  const result = useApi(
    () =>
      answer(
        api.GET('/v1/async/collections/{collection_id}/runs/{run_id}/jobs/{job_id}/result', {
          params: { path: { collection_id: collectionId, run_id: runId, job_id: jobId } },
        }),
      ),
    [jobId],
  );
  return (
    <section aria-labelledby="job-result-title" class="card">
      <h3 id="job-result-title">Result of job {jobId}</h3>
      <ProblemNotice problem={result.problem} />
      {result.data && <ResultView result={result.data} idPrefix="job-result" />}
    </section>
  );
}

function WebhookLog({ collectionId, runId, refreshKey }: { collectionId: string; runId: string; refreshKey: string }) {
  const path = { collection_id: collectionId, run_id: runId };
  const log = useApi(
    () => answer(api.GET('/v1/async/collections/{collection_id}/runs/{run_id}/webhook-deliveries', { params: { path } })),
    [runId, refreshKey],
  );
  const redeliver = useAction(async () => {
    await answer(api.POST('/v1/async/collections/{collection_id}/runs/{run_id}/webhook-deliveries/redeliver', { params: { path } }));
    log.reload();
  });
  return (
    <DeliveryLog
      log={log.data}
      problem={log.problem ?? redeliver.problem}
      pending={redeliver.pending}
      onRedeliver={() => void redeliver.run()}
    />
  );
}

/** A completion webhook's delivery log (runs and batches share it) with a redeliver button. */
export function DeliveryLog(props: {
  log: Schemas['WebhookDeliveryLog'] | null;
  problem: import('../api/api-client').ApiProblem | null;
  pending: boolean;
  onRedeliver: () => void;
}) {
  const log = props.log;
  return (
    <section aria-labelledby="webhook-title">
      <h2 id="webhook-title">Webhook deliveries</h2>
      <ProblemNotice problem={props.problem} />
      {log && (
        <>
          <p>
            {log.callback_url} · <strong>{log.status}</strong>
            {log.next_attempt_at ? ` · next attempt ${formatTime(log.next_attempt_at)}` : ''}
          </p>
          <DataTable
            caption="Delivery attempts"
            captionHidden
            rows={log.attempts}
            columns={[
              { label: '#', rowHeader: true, cell: (a) => `${a.attempt}${a.manual ? ' (manual)' : ''}` },
              { label: 'When', cell: (a) => formatTime(a.attempted_at) },
              { label: 'Outcome', cell: (a) => a.outcome },
              { label: 'HTTP', cell: (a) => a.status_code ?? '—' },
              { label: 'ms', cell: (a) => a.latency_ms },
              { label: 'Error', cell: (a) => a.error ?? '' },
            ]}
          />
          <button type="button" disabled={props.pending || log.attempts.length === 0} onClick={props.onRedeliver}>
            Redeliver now
          </button>
        </>
      )}
    </section>
  );
}
