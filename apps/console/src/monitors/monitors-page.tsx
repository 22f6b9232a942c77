import { useState } from 'preact/hooks';
import { answer, api, type Schemas } from '../api/api-client';
import { DataTable } from '../ui/data-table';
import { navigate } from '../ui/router';
import { useAction, useApi } from '../ui/use-api';
import { Field, formatTime, ProblemNotice } from '../ui/widgets';
import { sideBySide } from './side-by-side';

type Monitor = Schemas['MonitorView'];

/** What a monitor watches, in a few words: its pages, or the crawl each tick makes. */
function pagesOf(m: Monitor): string {
  return m.crawl ? `crawl of ${m.crawl.url} (at most ${m.crawl.max_pages ?? '?'} pages)` : `${m.urls.length} pages`;
}
type PageChange = { change_status: string; previous_at: string | null; diff: string | null; json_diff: unknown[] | null };

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);

/** Monitors (issue 63): create one, see its ticks as a timeline, its changes, and a change side by side. */
export function MonitorsPage({ monitorId, jobId }: { monitorId: string | undefined; jobId: string | undefined }) {
  const [urls, setUrls] = useState('');
  const [interval, setInterval] = useState('3600');
  const [selectors, setSelectors] = useState('');
  const [patterns, setPatterns] = useState('');
  const monitors = useApi(() => answer(api.GET('/v1/monitors')), [monitorId]);
  const create = useAction(async () => {
    const created = await answer(
      api.POST('/v1/monitors', {
        body: {
          urls: lines(urls),
          schedule: { interval_seconds: Number(interval) },
          ignore: { selectors: lines(selectors), patterns: lines(patterns) },
        },
      }),
    );
    navigate('monitors', created.id);
  });
  return (
    <div class="page">
      <h1>Monitors</h1>
      <p>
        Pages scraped on a schedule, each compared with its version before: new, same, changed or removed. Ignore rules leave out what is
        not a change — elements by CSS selector, text by RE2 pattern (a clock, a counter).
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <Field id="monitor-urls" label="Pages (one URL a line)" problems={create.problem?.at('urls')}>
          <textarea id="monitor-urls" required rows={4} value={urls} onInput={(e) => setUrls(e.currentTarget.value)} />
        </Field>
        <Field id="monitor-interval" label="Every (seconds)" problems={create.problem?.at('schedule', 'interval_seconds')}>
          <input id="monitor-interval" type="number" min={60} value={interval} onInput={(e) => setInterval(e.currentTarget.value)} />
        </Field>
        <Field id="monitor-selectors" label="Ignore elements (CSS, one a line)" problems={create.problem?.at('ignore', 'selectors')}>
          <textarea id="monitor-selectors" rows={2} value={selectors} onInput={(e) => setSelectors(e.currentTarget.value)} />
        </Field>
        <Field id="monitor-patterns" label="Ignore text (RE2, one a line)" problems={create.problem?.at('ignore', 'patterns')}>
          <textarea id="monitor-patterns" rows={2} value={patterns} onInput={(e) => setPatterns(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="primary" disabled={create.pending}>
          Watch
        </button>
        <ProblemNotice problem={create.problem?.fields.length ? null : (create.problem ?? null)} />
      </form>
      <ProblemNotice problem={monitors.problem} />
      <DataTable
        caption="Monitors"
        rows={monitors.data?.monitors ?? []}
        columns={[
          {
            label: 'Monitor',
            rowHeader: true,
            cell: (m: Monitor) => <a href={`#/monitors/${m.id}`}>{m.name ?? m.crawl?.url ?? m.urls[0]}</a>,
          },
          { label: 'State', cell: (m: Monitor) => m.state },
          { label: 'Pages', cell: (m: Monitor) => pagesOf(m) },
          { label: 'Ticks', cell: (m: Monitor) => m.ticks },
          { label: 'Next tick', cell: (m: Monitor) => formatTime(m.next_tick_at) },
        ]}
      />
      {monitorId && <MonitorView monitorId={monitorId} jobId={jobId} />}
    </div>
  );
}

function MonitorView({ monitorId, jobId }: { monitorId: string; jobId: string | undefined }) {
  const path = { monitor_id: monitorId };
  const monitor = useApi(() => answer(api.GET('/v1/monitors/{monitor_id}', { params: { path } })), [monitorId], {
    pollMs: 2000,
    keepPolling: () => true,
  });
  // A tick starts (ticks moves) and is reported (running_tick_id clears): the timeline reads again at both.
  const ticks = useApi(
    () => answer(api.GET('/v1/monitors/{monitor_id}/ticks', { params: { path } })),
    [monitorId, monitor.data?.ticks, monitor.data?.running_tick_id],
  );
  const changes = useApi(
    () => answer(api.GET('/v1/monitors/{monitor_id}/changes', { params: { path, query: { limit: 100 } } })),
    // The newest tick and whether it is reported: two ticks can report the same number of changes.
    [monitorId, ticks.data?.ticks[0]?.tick_id, ticks.data?.ticks[0]?.changes],
  );
  const move = useAction(async (action: 'pause' | 'resume' | 'tick' | 'delete') => {
    if (action === 'delete') {
      await answer(api.DELETE('/v1/monitors/{monitor_id}', { params: { path } }));
      navigate('monitors');
      return;
    }
    if (action === 'pause') await answer(api.POST('/v1/monitors/{monitor_id}/pause', { params: { path } }));
    else if (action === 'resume') await answer(api.POST('/v1/monitors/{monitor_id}/resume', { params: { path } }));
    else await answer(api.POST('/v1/monitors/{monitor_id}/tick', { params: { path } }));
    monitor.reload();
  });
  const m = monitor.data;
  return (
    <section aria-labelledby="monitor-title">
      <h2 id="monitor-title">Monitor {m?.name ?? monitorId}</h2>
      <ProblemNotice problem={monitor.problem ?? move.problem} />
      {m && (
        <>
          <p>
            <span class="badge">{m.state}</span> {pagesOf(m)} · next tick {formatTime(m.next_tick_at)} · last {formatTime(m.last_tick_at)}
          </p>
          <div class="actions">
            {m.state === 'active' && (
              <button type="button" disabled={move.pending} onClick={() => void move.run('tick')}>
                Tick now
              </button>
            )}
            <button type="button" disabled={move.pending} onClick={() => void move.run(m.state === 'active' ? 'pause' : 'resume')}>
              {m.state === 'active' ? 'Pause' : 'Resume'}
            </button>
            <button type="button" disabled={move.pending} onClick={() => void move.run('delete')}>
              Delete
            </button>
          </div>
        </>
      )}
      <DataTable
        caption="Ticks (newest first)"
        rows={ticks.data?.ticks ?? []}
        columns={[
          { label: 'Started', rowHeader: true, cell: (t) => formatTime(t.started_at) },
          { label: 'Status', cell: (t) => t.status },
          { label: 'Pages', cell: (t) => t.pages },
          { label: 'Changes', cell: (t) => t.changes ?? '…' },
          { label: 'Credits', cell: (t) => t.credits_charged },
        ]}
      />
      <DataTable
        caption="Changes (newest first)"
        rows={changes.data?.changes ?? []}
        columns={[
          {
            label: 'Page',
            rowHeader: true,
            className: 'url',
            cell: (c) => <a href={`#/monitors/${monitorId}/${c.job_id}`}>{c.url}</a>,
          },
          { label: 'Change', cell: (c) => c.change_status },
          { label: 'Seen', cell: (c) => formatTime(c.detected_at) },
          { label: 'Version before', cell: (c) => formatTime(c.previous_at) },
        ]}
      />
      {jobId && <ChangeView jobId={jobId} />}
    </section>
  );
}

function ChangeView({ jobId }: { jobId: string }) {
  const page = useApi(() => answer(api.GET('/v1/jobs/{job_id}/data', { params: { path: { job_id: jobId } } })), [jobId]);
  const change = (page.data as { change?: PageChange | null } | null)?.change ?? null;
  return (
    <div class="card">
      <h3>{change ? `Page ${change.change_status}` : 'Page'}</h3>
      <ProblemNotice problem={page.problem} />
      {change?.json_diff && change.json_diff.length > 0 && (
        <pre aria-label="Extracted fields that changed">{JSON.stringify(change.json_diff, null, 1)}</pre>
      )}
      {change?.diff ? (
        <table class="diff" aria-label="Before and after">
          <colgroup>
            <col class="no" />
            <col />
            <col class="no" />
            <col />
          </colgroup>
          <thead>
            <tr>
              <th scope="col" colSpan={2}>
                Before
              </th>
              <th scope="col" colSpan={2}>
                After
              </th>
            </tr>
          </thead>
          <tbody>
            {sideBySide(change.diff).map((row) =>
              row.kind === 'hunk' ? (
                <tr class="hunk">
                  <td colSpan={4}>{row.text}</td>
                </tr>
              ) : (
                <tr class={row.kind}>
                  <td class="no">{row.leftNo ?? ''}</td>
                  <td class="before">{row.left ?? ''}</td>
                  <td class="no">{row.rightNo ?? ''}</td>
                  <td class="after">{row.right ?? ''}</td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      ) : (
        change && (
          <p>No diff: {change.change_status === 'new' ? 'the first version of this page' : `the page is ${change.change_status}`}.</p>
        )
      )}
    </div>
  );
}
