import MarkdownIt from 'markdown-it';
import type { Schemas } from '../api/api-client';
import { OpenInPlayground } from '../playground/open-in-playground';
import { DataTable } from '../ui/data-table';
import { Json, Tabs, type TabSpec } from '../ui/widgets';
import { inertPage } from './inert-page';

// Raw HTML inside markdown stays text; the rendered markdown then goes through inertPage like a page.
const markdown = new MarkdownIt({ html: false, linkify: false });

type Result = Partial<Schemas['ScrapeResultBody']> & { url?: string; custom_id?: string | null; status?: string };

export function creditsText(n: number): string {
  return `${n} ${n === 1 ? 'credit' : 'credits'}`;
}

/** A scraped page in a sandboxed frame: no script runs, nothing loads from another host. */
export function PageFrame({ html, title }: { html: string; title: string }) {
  return <iframe class="page-frame" sandbox="" referrerpolicy="no-referrer" title={title} srcdoc={inertPage(html)} />;
}

function screenshotSource(data: string): string {
  if (data.startsWith('data:image/')) return data;
  const type = data.startsWith('/9j/') ? 'jpeg' : data.startsWith('UklGR') ? 'webp' : 'png';
  return `data:image/${type};base64,${data}`;
}

const TIMING_PARTS = [
  ['queue_wait_ms', 'Queue'],
  ['proxy_ms', 'Proxy'],
  ['browser_launch_ms', 'Browser ready'],
  ['navigation_ms', 'Navigation'],
  ['actions_ms', 'Actions'],
  ['extraction_ms', 'Extraction'],
] as const;

function TimingBar({ timings }: { timings: Schemas['ScrapeTimings'] }) {
  const total = Math.max(timings.total_ms ?? 0, 1);
  const parts = TIMING_PARTS.map(([key, label]) => ({ key: key as string, label: label as string, ms: Number(timings[key] ?? 0) })).filter(
    (p) => p.ms > 0,
  );
  // What the engine spent outside the named phases (waiting on the page, assembling the answer).
  const other = (timings.total_ms ?? 0) - parts.reduce((sum, p) => sum + p.ms, 0);
  if (other >= 1) parts.push({ key: 'other', label: 'Other', ms: other });
  return (
    <figure class="timings">
      <div class="timing-bar" aria-hidden="true">
        {parts.map((p) => (
          <span
            class={`timing-part timing-${p.key}`}
            style={{ width: `${(p.ms / total) * 100}%` }}
            title={`${p.label}: ${Math.round(p.ms)} ms`}
          />
        ))}
      </div>
      <figcaption>
        <table>
          <caption>Where {Math.round(timings.total_ms ?? 0)} ms went</caption>
          <tbody>
            {parts.map((p) => (
              <tr>
                <th scope="row">
                  <span class={`swatch timing-${p.key}`} aria-hidden="true" /> {p.label}
                </th>
                <td>{Math.round(p.ms)} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      </figcaption>
    </figure>
  );
}

function Guidance({ guidance }: { guidance: Schemas['ScrapeGuidance'] }) {
  const suggested = guidance.suggested_request as Record<string, unknown> | null | undefined;
  return (
    <div class="guidance">
      <p>
        <strong>{guidance.success ? 'Usable content came back.' : `Not usable: ${guidance.error_type ?? 'unknown'}`}</strong>
        {guidance.error_provider ? ` (provider: ${guidance.error_provider})` : ''}
      </p>
      <p>
        Credits charged: {guidance.credits_charged}
        {guidance.credits_refunded ? ' (not charged: the failure was ours or the network’s)' : ''}
      </p>
      {guidance.stop_reason && <p>Stop: {guidance.stop_reason}</p>}
      {(guidance.next_steps ?? []).length > 0 && (
        <ol>
          {(guidance.next_steps ?? []).map((step) => (
            <li>{step}</li>
          ))}
        </ol>
      )}
      {suggested && (
        <div>
          <OpenInPlayground request={suggested} primary />
          <Json value={suggested} label="Suggested request" />
        </div>
      )}
    </div>
  );
}

/** Every part of a scrape answer (spec 2.7), each in its own tab; tabs without content are left out. */
export function ResultView({ result, idPrefix }: { result: Result; idPrefix: string }) {
  const tabs: TabSpec[] = [];
  if (result.html) {
    tabs.push({
      id: 'rendered',
      label: 'Rendered',
      render: () => <PageFrame html={result.html!} title="Rendered page (sandboxed, no scripts)" />,
    });
    tabs.push({
      id: 'html',
      label: 'HTML',
      render: () => (
        <pre class="code" tabIndex={0}>
          {result.html}
        </pre>
      ),
    });
  }
  if (result.markdown) {
    tabs.push({
      id: 'markdown',
      label: 'Markdown',
      render: () => <PageFrame html={`<body>${markdown.render(result.markdown!)}</body>`} title="Markdown, rendered" />,
    });
    tabs.push({
      id: 'markdown-raw',
      label: 'Markdown (raw)',
      render: () => (
        <pre class="code" tabIndex={0}>
          {result.markdown}
        </pre>
      ),
    });
  }
  if (result.screenshot) {
    tabs.push({
      id: 'screenshot',
      label: 'Screenshot',
      render: () => <img class="screenshot" src={screenshotSource(result.screenshot!)} alt={`Screenshot of ${result.url ?? 'the page'}`} />,
    });
  }
  if (result.extracted_data && Object.keys(result.extracted_data).length > 0) {
    tabs.push({ id: 'extracted', label: 'Extracted', render: () => <Json value={result.extracted_data} label="Extracted data" /> });
  }
  if (result.network_requests && result.network_requests.length > 0) {
    const requests = result.network_requests;
    tabs.push({
      id: 'network',
      label: `Network (${requests.length})`,
      render: () => (
        <DataTable
          caption="Captured network requests"
          rows={requests}
          columns={[
            { label: 'Method', cell: (r) => r.method },
            { label: 'Type', cell: (r) => r.resource_type },
            { label: 'Status', cell: (r) => r.status ?? r.error },
            { label: 'URL', rowHeader: true, className: 'url', cell: (r) => r.url },
            { label: 'Size', cell: (r) => r.size },
            { label: 'ms', cell: (r) => Math.round(r.duration ?? 0) },
          ]}
        />
      ),
    });
  }
  if (result.evaluate_results && result.evaluate_results.length > 0) {
    tabs.push({ id: 'evaluate', label: 'Evaluate', render: () => <Json value={result.evaluate_results} label="Evaluate results" /> });
  }
  if (result.timings) {
    const timings = result.timings;
    tabs.push({ id: 'timings', label: 'Timings', render: () => <TimingBar timings={timings} /> });
  }
  if (result.guidance) {
    const guidance = result.guidance;
    tabs.push({ id: 'guidance', label: 'Guidance', render: () => <Guidance guidance={guidance} /> });
  }
  if (result.metadata || result.action_error) {
    tabs.push({
      id: 'metadata',
      label: 'Metadata',
      render: () => <Json value={{ metadata: result.metadata, action_error: result.action_error }} label="Metadata" />,
    });
  }
  tabs.push({
    id: 'json',
    label: 'JSON',
    render: () => (
      <Json
        value={{
          ...result,
          html: result.html ? `(${result.html.length} characters)` : result.html,
          screenshot: result.screenshot ? '(base64 image)' : result.screenshot,
        }}
        label="The whole answer"
      />
    ),
  });
  return (
    <section class="result" aria-label="Result">
      <p class="result-summary">
        <span class={`badge ${result.guidance?.success ? 'badge-ok' : 'badge-bad'}`}>
          {result.guidance?.success ? 'success' : (result.guidance?.error_type ?? 'failed')}
        </span>{' '}
        Target answered <strong>{result.statusCode ?? '—'}</strong> · {Math.round((result.executionTime ?? 0) * 1000) / 1000} s ·{' '}
        <span data-testid="credits-charged">{creditsText(result.guidance?.credits_charged ?? 0)} charged</span>
        {result.potentiallyBlockedByCaptcha ? ' · possibly blocked by a CAPTCHA' : ''}
        {result.message ? ` · ${result.message}` : ''}
      </p>
      <Tabs tabs={tabs} label="Result views" idPrefix={idPrefix} />
    </section>
  );
}
