import { useState } from 'preact/hooks';
import { answer, api, type Schemas } from '../api/api-client';
import { ResultView } from '../results/result-view';
import { DataTable, Pager, useCursorPages } from '../ui/data-table';
import { navigate } from '../ui/router';
import { useAction, useApi } from '../ui/use-api';
import { Field, formatTime, ProblemNotice, Progress } from '../ui/widgets';

type Crawl = Schemas['CrawlView'];
type SitemapMode = 'include' | 'skip' | 'only';

/** Start a crawl or a plan of one (issue 39), follow it live, read its plan, its pages and each page's result. */
export function CrawlPage({ crawlId, jobId }: { crawlId: string | undefined; jobId: string | undefined }) {
  const [url, setUrl] = useState('');
  const [maxPages, setMaxPages] = useState('100');
  const [maxDepth, setMaxDepth] = useState('3');
  const [sitemap, setSitemap] = useState<SitemapMode>('include');
  const [format, setFormat] = useState<'markdown' | 'html'>('markdown');
  const [dryRun, setDryRun] = useState(false);
  const start = useAction(async () => {
    const started = await answer(
      api.POST('/v1/crawl', {
        body: {
          url: url.trim(),
          max_pages: Number(maxPages),
          max_depth: Number(maxDepth),
          sitemap,
          dry_run: dryRun,
          scrape: { format, only_main_content: format === 'markdown' },
        },
      }),
    );
    navigate('crawl', started.crawl_id);
  });
  return (
    <div class="page">
      <h1>Crawl</h1>
      <p>
        Every page of a site once — the start page, its sitemaps and the links within the depth, in scope and allowed by robots.txt. A plan
        (dry run) discovers and samples without scraping, and forecasts the credits.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void start.run();
        }}
      >
        <Field id="crawl-url" label="Start URL" problems={start.problem?.at('url')}>
          <input id="crawl-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </Field>
        <Field id="crawl-max-pages" label="Most pages" problems={start.problem?.at('max_pages')}>
          <input
            id="crawl-max-pages"
            type="number"
            min={1}
            max={10000}
            value={maxPages}
            onInput={(e) => setMaxPages(e.currentTarget.value)}
          />
        </Field>
        <Field id="crawl-max-depth" label="Link depth" problems={start.problem?.at('max_depth')}>
          <input id="crawl-max-depth" type="number" min={0} max={10} value={maxDepth} onInput={(e) => setMaxDepth(e.currentTarget.value)} />
        </Field>
        <Field id="crawl-sitemap" label="Sitemaps" problems={start.problem?.at('sitemap')}>
          <select id="crawl-sitemap" value={sitemap} onChange={(e) => setSitemap(e.currentTarget.value as SitemapMode)}>
            <option value="include">sitemaps and links</option>
            <option value="skip">links only</option>
            <option value="only">sitemaps only</option>
          </select>
        </Field>
        <Field id="crawl-format" label="Each page as">
          <select id="crawl-format" value={format} onChange={(e) => setFormat(e.currentTarget.value as typeof format)}>
            <option value="markdown">markdown (main content)</option>
            <option value="html">html</option>
          </select>
        </Field>
        <Field id="crawl-dry-run" label="Plan only (dry run: nothing scraped)">
          <input id="crawl-dry-run" type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.currentTarget.checked)} />
        </Field>
        <button type="submit" class="primary" disabled={start.pending}>
          {dryRun ? 'Plan' : 'Crawl'}
        </button>
        <ProblemNotice problem={start.problem?.fields.length ? null : (start.problem ?? null)} />
      </form>
      {crawlId && <CrawlView crawlId={crawlId} jobId={jobId} />}
    </div>
  );
}

function CrawlView({ crawlId, jobId }: { crawlId: string; jobId: string | undefined }) {
  const path = { crawl_id: crawlId };
  const crawl = useApi<Crawl>(() => answer(api.GET('/v1/crawl/{crawl_id}', { params: { path } })), [crawlId], {
    pollMs: 1000,
    keepPolling: (c) => c.status !== 'completed',
  });
  const move = useAction(async (action: 'pause' | 'resume' | 'cancel') => {
    if (action === 'pause') await answer(api.PUT('/v1/crawl/{crawl_id}/pause', { params: { path } }));
    else if (action === 'resume') await answer(api.PUT('/v1/crawl/{crawl_id}/resume', { params: { path } }));
    else await answer(api.POST('/v1/crawl/{crawl_id}/cancel', { params: { path } }));
    crawl.reload();
  });
  const c = crawl.data;
  return (
    <section aria-labelledby="crawl-title">
      <h2 id="crawl-title">Crawl {crawlId}</h2>
      <ProblemNotice problem={crawl.problem ?? move.problem} />
      {c && (
        <>
          <p>
            <span class="badge">{c.state}</span> <span class="url">{c.url}</span> · robots.txt {c.robots} · {c.credits_charged} credits
            {c.zero_pages_reason ? ` · no page scraped: ${c.zero_pages_reason}` : ''}
          </p>
          {!c.plan && c.state !== 'planning' && (
            <>
              <Progress value={c.completed + c.failed} max={Math.max(c.discovered, 1)} label="Pages finished" />
              <p>
                {c.discovered} discovered (at most {c.max_pages}), {c.queued} queued, {c.completed} scraped, {c.failed} failed
              </p>
              <div class="actions">
                {c.state === 'running' && (
                  <button type="button" disabled={move.pending} onClick={() => void move.run('pause')}>
                    Pause
                  </button>
                )}
                {c.state === 'paused' && (
                  <button type="button" disabled={move.pending} onClick={() => void move.run('resume')}>
                    Resume
                  </button>
                )}
                {(c.state === 'running' || c.state === 'paused') && (
                  <button type="button" disabled={move.pending} onClick={() => void move.run('cancel')}>
                    Cancel
                  </button>
                )}
              </div>
              <DataTable
                caption="Links not followed, by reason"
                rows={Object.entries(c.skipped).map(([reason, n]) => ({ reason, n }))}
                columns={[
                  { label: 'Reason', rowHeader: true, cell: (r) => r.reason },
                  { label: 'Links', cell: (r) => r.n },
                ]}
              />
              <CrawlPages crawlId={crawlId} jobId={jobId} finished={c.completed + c.failed} />
            </>
          )}
          {c.state === 'planning' && <p>Planning: discovering the site and sampling a few pages of each section…</p>}
          {c.plan && <PlanView plan={c.plan} />}
        </>
      )}
    </section>
  );
}

function PlanView({ plan }: { plan: Schemas['CrawlPlan'] }) {
  return (
    <div class="card">
      <h3>Plan</h3>
      <p>
        {plan.discovered} URLs{plan.truncated ? ' (at least)' : ''} · recommended mode {plan.recommended_mode ?? 'unknown'} · block rate{' '}
        {plan.block_rate === null || plan.block_rate === undefined ? 'unknown' : `${Math.round(plan.block_rate * 100)} %`} · the samples
        cost {plan.credits_charged} credits
      </p>
      <DataTable
        caption="Forecast"
        rows={plan.forecast}
        columns={[
          { label: 'Mode', rowHeader: true, cell: (f) => f.mode },
          { label: 'Pages', cell: (f) => f.pages },
          { label: 'Credits', cell: (f) => f.credits },
          { label: 'Time', cell: (f) => (f.seconds === null || f.seconds === undefined ? 'not measured' : `≈ ${Math.round(f.seconds)} s`) },
        ]}
      />
      <DataTable
        caption="Sections"
        rows={plan.sections}
        columns={[
          { label: 'Section', rowHeader: true, cell: (s) => s.path },
          { label: 'URLs', cell: (s) => s.urls },
          {
            label: 'Sampled',
            cell: (s) =>
              Object.entries(s.strategies)
                .map(([strategy, n]) => `${strategy} ${n}`)
                .join(', ') || '—',
          },
        ]}
      />
    </div>
  );
}

function CrawlPages({ crawlId, jobId, finished }: { crawlId: string; jobId: string | undefined; finished: number }) {
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const jobs = useApi(
    () => answer(api.GET('/v1/jobs', { params: { query: { batch_id: crawlId, cursor, limit: 25 } } })),
    [crawlId, cursor, finished],
  );
  const result = useApi(
    async () => (jobId ? answer(api.GET('/v1/jobs/{job_id}/data', { params: { path: { job_id: jobId } } })) : null),
    [jobId],
  );
  return (
    <div>
      <ProblemNotice problem={jobs.problem} />
      <DataTable
        caption="Pages"
        rows={jobs.data?.items ?? []}
        columns={[
          {
            label: 'URL',
            rowHeader: true,
            className: 'url',
            cell: (job) => <a href={`#/crawl/${crawlId}/${job.job_id}`}>{job.url}</a>,
          },
          { label: 'Status', cell: (job) => job.status },
          { label: 'HTTP', cell: (job) => job.status_code ?? '—' },
          { label: 'Credits', cell: (job) => job.credits },
          { label: 'Finished', cell: (job) => formatTime(job.completed_at) },
        ]}
      />
      <Pager label="Crawl page pages" pages={pages} hasMore={jobs.data?.has_more ?? false} nextCursor={jobs.data?.cursor_next} />
      <ProblemNotice problem={result.problem} />
      {result.data && <ResultView result={result.data} idPrefix="crawl-result" />}
    </div>
  );
}
