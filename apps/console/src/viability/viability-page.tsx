import { useState } from 'preact/hooks';
import { answer, api, type Schemas } from '../api/api-client';
import { OpenInPlayground } from '../playground/open-in-playground';
import { navigate } from '../ui/router';
import { DataTable } from '../ui/data-table';
import { useAction, useApi } from '../ui/use-api';
import { Field, formatTime, Json, ProblemNotice, Progress } from '../ui/widgets';

type ViabilityRun = Schemas['ViabilityRunView'];

/** Submit URLs for a viability test (spec 4.6), watch it, read each verdict with its evidence. */
export function ViabilityPage({ runId }: { runId: string | undefined }) {
  const [urls, setUrls] = useState('');
  const [depth, setDepth] = useState<'quick' | 'standard' | 'full'>('standard');
  const start = useAction(async () => {
    const list = urls
      .split(/\s+/)
      .map((u) => u.trim())
      .filter(Boolean);
    const started = await answer(api.POST('/v1/async/viability-test', { body: { urls: list, depth } }));
    navigate('viability', started.run_id);
  });
  const runs = useApi(() => answer(api.GET('/v1/async/viability-test')), [runId]);
  return (
    <div class="page">
      <h1>Viability test</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void start.run();
        }}
      >
        <Field
          id="viability-urls"
          label="URLs (one per line)"
          problems={start.problem?.under('urls').map((p) => `${p.loc.slice(1).join('.')}: ${p.msg}`)}
        >
          <textarea id="viability-urls" rows={4} value={urls} onInput={(e) => setUrls(e.currentTarget.value)} />
        </Field>
        <Field id="viability-depth" label="Depth" problems={start.problem?.at('depth')}>
          <select id="viability-depth" value={depth} onChange={(e) => setDepth(e.currentTarget.value as typeof depth)}>
            <option value="quick">quick</option>
            <option value="standard">standard</option>
            <option value="full">full</option>
          </select>
        </Field>
        <button type="submit" class="primary" disabled={start.pending}>
          Test
        </button>
        <ProblemNotice problem={start.problem?.fields.length ? null : (start.problem ?? null)} />
      </form>
      {runId && <ViabilityRunView runId={runId} />}
      <h2>Earlier tests</h2>
      <ProblemNotice problem={runs.problem} />
      <DataTable
        caption="Viability runs"
        captionHidden
        rows={runs.data?.items ?? []}
        columns={[
          { label: 'Run', rowHeader: true, cell: (run) => <a href={`#/viability/${run.run_id}`}>{run.run_id}</a> },
          { label: 'Status', cell: (run) => run.status },
          { label: 'URLs', cell: (run) => `${run.completed_urls} / ${run.total_urls}` },
          { label: 'Created', cell: (run) => formatTime(run.created_at) },
        ]}
      />
    </div>
  );
}

function ViabilityRunView({ runId }: { runId: string }) {
  const run = useApi<ViabilityRun>(
    () => answer(api.GET('/v1/async/viability-test/{run_id}', { params: { path: { run_id: runId } } })),
    [runId],
    {
      pollMs: 1000,
      keepPolling: (r) => r.status !== 'completed',
    },
  );
  const data = run.data;
  return (
    <section aria-labelledby="viability-run-title">
      <h2 id="viability-run-title">Run {runId}</h2>
      <ProblemNotice problem={run.problem} />
      {data && (
        <>
          <Progress value={data.completed_urls} max={data.total_urls} label="URLs tested" />
          <p>
            {data.status === 'completed' ? `Completed ${formatTime(data.completed_at)}` : 'Testing…'} · depth {data.depth}
          </p>
          {(data.results ?? []).map((result, index) => (
            <Verdict result={result} index={index} />
          ))}
        </>
      )}
    </section>
  );
}

function Verdict({ result, index }: { result: Schemas['ViabilityResult']; index: number }) {
  const suggested = result.suggested_request as Record<string, unknown> | null;
  return (
    <article class="card verdict" aria-labelledby={`verdict-${index}`}>
      <h3 id={`verdict-${index}`} class="url">
        {result.url}
      </h3>
      <p>
        <span class={`badge badge-${result.difficulty}`}>{result.difficulty}</span> Recommended:{' '}
        <strong>{result.recommended_strategy}</strong>
        {result.javascript_required ? ' · needs JavaScript' : ''}
        {result.captcha_detected ? ` · CAPTCHA (${(result.captcha_providers ?? []).join(', ') || 'unknown'})` : ''}
        {result.cloudflare_level !== 'none' ? ` · Cloudflare: ${result.cloudflare_level}` : ''}
      </p>
      <ul>
        {(result.reasons ?? []).map((reason) => (
          <li>{reason}</li>
        ))}
      </ul>
      <DataTable
        caption="Evidence: each mode tried"
        rows={Object.entries(result.tests ?? {}).map(([mode, test]) => ({ mode, t: test as Schemas['ViabilityModeTest'] | null }))}
        columns={[
          { label: 'Mode', rowHeader: true, cell: ({ mode }) => mode },
          { label: 'Success', cell: ({ t }) => (t ? (t.success ? 'yes' : 'no') : 'not run') },
          { label: 'Status', cell: ({ t }) => t?.status_code ?? '—' },
          { label: 'Blocked', cell: ({ t }) => (t ? (t.blocked ? 'yes' : 'no') : '—') },
          { label: 'ms', cell: ({ t }) => t?.time_ms ?? '—' },
          { label: 'Credits', cell: ({ t }) => t?.credits ?? '—' },
          { label: 'Error', cell: ({ t }) => t?.error ?? '' },
        ]}
      />
      <details>
        <summary>All evidence</summary>
        <Json value={{ ...result, suggested_request: undefined }} label={`Evidence for ${result.url}`} />
      </details>
      {suggested && <OpenInPlayground request={suggested} />}
    </article>
  );
}
