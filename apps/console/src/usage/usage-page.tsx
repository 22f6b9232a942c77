import { useEffect, useState } from 'preact/hooks';
import { answer, api, lastUsage, onUsageHeaders, type Schemas, type UsageHeaders } from '../api/api-client';
import { DataTable } from '../ui/data-table';
import { useApi } from '../ui/use-api';
import { formatTime, ProblemNotice, Progress } from '../ui/widgets';

function thisMonth(): string {
  return new Date().toISOString().slice(0, 7);
}

/** Credits against the quota, usage by day and mode, top domains, error types, and the headers explained. */
export function UsagePage() {
  const [month, setMonth] = useState(thisMonth());
  const credits = useApi(() => answer(api.GET('/v1/credits/summary')), []);
  const metrics = useApi(
    () => answer(api.GET('/v1/sync/client-metrics', { params: { query: { date: month, daily: true, detail: 'urls' } } })),
    [month],
  );
  const failures = useApi(() => answer(api.GET('/v1/jobs', { params: { query: { outcome: 'failed,timeout', limit: 500 } } })), []);
  const c = credits.data;
  return (
    <div class="page">
      <h1>Usage</h1>
      <ProblemNotice problem={credits.problem} />
      {c && (
        <section class="card" aria-labelledby="credits-title">
          <h2 id="credits-title">Credits in {c.month}</h2>
          {c.limit !== null ? (
            <Progress value={c.used + c.held} max={c.limit} label="Credits used and held of the monthly quota" />
          ) : (
            <p>Unlimited plan.</p>
          )}
          <dl class="counters">
            <div>
              <dt>Used</dt>
              <dd data-testid="credits-used">{c.used}</dd>
            </div>
            <div>
              <dt>Held by work in flight</dt>
              <dd>{c.held}</dd>
            </div>
            <div>
              <dt>Remaining</dt>
              <dd>{c.remaining ?? '∞'}</dd>
            </div>
            <div>
              <dt>Resets</dt>
              <dd>{formatTime(c.resets_at)}</dd>
            </div>
          </dl>
          <DataTable
            caption="Credits by kind"
            rows={[...Object.entries(c.by_kind), ['outside projects', c.outside_projects] as const]}
            columns={[
              { label: '', rowHeader: true, cell: ([kind]) => kind },
              { label: '', cell: ([, n]) => n },
            ]}
          />
        </section>
      )}
      <section class="card" aria-labelledby="daily-title">
        <h2 id="daily-title">By day and mode</h2>
        <label for="usage-month">
          Month{' '}
          <input id="usage-month" type="month" value={month} onChange={(e) => e.currentTarget.value && setMonth(e.currentTarget.value)} />
        </label>
        <ProblemNotice problem={metrics.problem} />
        {metrics.data && <DailyChart metrics={metrics.data} />}
        {metrics.data && <TopDomains metrics={metrics.data} />}
      </section>
      <section class="card" aria-labelledby="errors-title">
        <h2 id="errors-title">Error types of failed jobs</h2>
        <p class="hint">
          The first 500 batch and collection jobs that failed or timed out, in the meaning a run’s counters use: failed is a job that ended
          without usable content (the target answered 4xx/5xx, a block or CAPTCHA page, an empty shell, or the worker failed before the
          target answered). Sync calls keep their guidance in their answer only.
        </p>
        <ProblemNotice problem={failures.problem} />
        {failures.data && <ErrorTypes jobs={failures.data.items} />}
      </section>
      <HeadersExplained />
    </div>
  );
}

function DailyChart({ metrics }: { metrics: Schemas['ClientMetricsReply'] }) {
  const days = Object.entries(metrics.daily ?? {}).map(([day, modes]) => ({ day, simple: modes.simple, browser: modes.browser }));
  const peak = Math.max(1, ...days.map((d) => d.simple.credits + d.browser.credits));
  const modes = metrics.scrape_type;
  return (
    <>
      <figure class="chart" aria-labelledby="daily-caption">
        <div class="bars" aria-hidden="true">
          {days.map((d) => (
            <div class="bar" title={`${d.day}: ${d.simple.credits} credits simple, ${d.browser.credits} credits browser`}>
              <span class="bar-browser" style={{ height: `${(d.browser.credits / peak) * 100}%` }} />
              <span class="bar-simple" style={{ height: `${(d.simple.credits / peak) * 100}%` }} />
            </div>
          ))}
        </div>
        <figcaption id="daily-caption">
          Credits a day ({days[0]?.day ?? ''} to {days[days.length - 1]?.day ?? ''}): <span class="swatch bar-simple" aria-hidden="true" />{' '}
          simple, <span class="swatch bar-browser" aria-hidden="true" /> browser.
        </figcaption>
      </figure>
      <details>
        <summary>The numbers, day by day</summary>
        <DataTable
          caption="Usage a day by mode"
          captionHidden
          rows={days.filter((d) => d.simple.requests + d.browser.requests > 0)}
          columns={[
            { label: 'Day', rowHeader: true, cell: (d) => d.day },
            { label: 'Simple calls', cell: (d) => d.simple.requests },
            { label: 'Simple failed', cell: (d) => d.simple.failed },
            { label: 'Browser calls', cell: (d) => d.browser.requests },
            { label: 'Browser failed', cell: (d) => d.browser.failed },
            { label: 'Credits', cell: (d) => d.simple.credits + d.browser.credits },
          ]}
        />
      </details>
      <DataTable
        caption="By mode"
        rows={(['simple', 'browser'] as const).map((mode) => ({ mode, cell: modes[mode] }))}
        columns={[
          { label: 'Mode', rowHeader: true, cell: (m) => m.mode },
          { label: 'Calls', cell: (m) => m.cell.requests },
          { label: 'Succeeded', cell: (m) => m.cell.success },
          { label: 'Failed', cell: (m) => m.cell.failed },
          { label: 'Credits', cell: (m) => m.cell.credits },
          { label: 'Mean ms', cell: (m) => m.cell.avg_execution_ms ?? '—' },
        ]}
      />
    </>
  );
}

function TopDomains({ metrics }: { metrics: Schemas['ClientMetricsReply'] }) {
  const domains = Object.entries(metrics.url ?? {})
    .sort(([, a], [, b]) => b.requests - a.requests)
    .slice(0, 10);
  return (
    <DataTable
      caption="Top domains"
      rows={domains}
      empty="No charged call this month."
      columns={[
        { label: 'Domain', rowHeader: true, cell: ([domain]) => domain },
        { label: 'Calls', cell: ([, cell]) => cell.requests },
        { label: 'Failed', cell: ([, cell]) => cell.failed },
        { label: 'Credits', cell: ([, cell]) => cell.credits },
      ]}
    />
  );
}

function ErrorTypes({ jobs }: { jobs: Schemas['ClientJobItem'][] }) {
  const counts = new Map<string, number>();
  for (const job of jobs) {
    const key = `${job.outcome ?? job.status}: ${(job.error ?? 'unknown').split(/[:.(]/)[0]!.trim().slice(0, 80)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const rows = [...counts].sort(([, a], [, b]) => b - a);
  if (rows.length === 0) return <p data-testid="failed-jobs">No failed jobs.</p>;
  return (
    <>
      <p data-testid="failed-jobs">
        {jobs.length} {jobs.length === 1 ? 'job' : 'jobs'} failed or timed out.
      </p>
      <DataTable
        caption="Failed jobs by error"
        captionHidden
        rows={rows}
        columns={[
          { label: 'Error', rowHeader: true, cell: ([key]) => key },
          { label: 'Jobs', cell: ([, n]) => n },
        ]}
      />
    </>
  );
}

/** The usage headers of the last answer (spec 8), each with what it means. */
function HeadersExplained() {
  const [usage, setUsage] = useState<UsageHeaders | null>(lastUsage);
  useEffect(() => onUsageHeaders(setUsage), []);
  const rows: Array<[string, number | null | undefined, string]> = [
    ['X-RateLimit-Limit', usage?.rateLimit, 'Requests a minute your plan allows.'],
    ['X-RateLimit-Remaining', usage?.rateRemaining, 'Requests left in the current minute; at 0 the API answers 429 with Retry-After.'],
    ['X-RateLimit-Reset', usage?.rateReset, 'Unix seconds when the minute’s window resets.'],
    ['X-Quota-Limit', usage?.quotaLimit, 'Credits a month (empty: unlimited).'],
    ['X-Quota-Used', usage?.quotaUsed, 'Credits charged this month, plus those held by work in flight.'],
    ['X-Quota-Remaining', usage?.quotaRemaining, 'Credits left; a request that needs more is refused with 429 until the month resets.'],
    ['X-Credits-Charged', usage?.creditsCharged, 'What the request itself cost.'],
  ];
  return (
    <section class="card" aria-labelledby="headers-title">
      <h2 id="headers-title">Rate-limit and quota headers</h2>
      <p class="hint">Every answer carries them; these are the values of the console’s last call.</p>
      <DataTable
        caption="Rate-limit and quota headers of the last answer"
        captionHidden
        rows={rows}
        columns={[
          { label: 'Header', rowHeader: true, cell: ([name]) => <code>{name}</code> },
          { label: 'Last value', cell: ([, value]) => value ?? '—' },
          { label: 'Meaning', cell: ([, , meaning]) => meaning },
        ]}
      />
    </section>
  );
}
