import { useMemo, useState } from 'preact/hooks';
import { answer, api, ApiProblem, type ScrapeResult } from '../api/api-client';
import { ResultView } from '../results/result-view';
import { useAction } from '../ui/use-api';
import { CopyButton, Field, ProblemNotice, Tabs } from '../ui/widgets';
import { ActionList } from './action-list';
import { PairRows } from './pair-rows';
import { curlSnippet, pythonSnippet, typeScriptSnippet } from './request-snippets';
import { emptyForm, FormProblem, fromRequest, type ScrapeForm, takeHandedRequest, toRequest } from './scrape-form';

function Check({ id, label, checked, onChange }: { id: string; label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label class="check" for={id}>
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      {label}
    </label>
  );
}

/** The object form of use_proxy: [input id, label, API field, form key]. */
const PROXY_RETRY_FIELDS = [
  ['proxy-retries', 'Max retries', 'max_retries', 'proxyMaxRetries'],
  ['proxy-delay', 'Delay (s)', 'delay_seconds', 'proxyDelaySeconds'],
  ['proxy-backoff', 'Backoff factor', 'backoff_factor', 'proxyBackoffFactor'],
] as const;

/** A form for every field of the scrape request (spec 2.1), sent to POST /v1/sync/scrape. */
export function PlaygroundPage() {
  const [form, setForm] = useState<ScrapeForm>(() => {
    const handed = takeHandedRequest();
    return handed ? fromRequest(handed) : emptyForm();
  });
  const [result, setResult] = useState<ScrapeResult | null>(null);
  const set = (patch: Partial<ScrapeForm>) => setForm((f) => ({ ...f, ...patch }));

  const built = useMemo(() => {
    try {
      return { request: toRequest(form), problem: null };
    } catch (error) {
      if (error instanceof FormProblem)
        return {
          request: null,
          problem: new ApiProblem(422, 'form', error.message, [{ loc: ['body', ...error.path], msg: error.message }], null),
        };
      throw error;
    }
  }, [form]);

  const scrape = useAction(async () => {
    if (!built.request) throw built.problem;
    setResult(null);
    return answer(api.POST('/v1/sync/scrape', { body: built.request }));
  });
  const problem = scrape.problem ?? built.problem;
  const at = (...path: Array<string | number>) => problem?.at(...path) ?? [];

  const submit = async (event: Event) => {
    event.preventDefault();
    const answered = await scrape.run();
    if (answered) setResult(answered);
  };
  const snippet = { origin: window.location.origin, path: '/v1/sync/scrape', body: built.request ?? {} };

  return (
    <div class="page playground">
      <h1>Playground</h1>
      <form onSubmit={(e) => void submit(e)} noValidate aria-describedby="playground-help">
        <p id="playground-help" class="hint">
          Every field of the scrape request. Messages from the API appear beside the field they are about.
        </p>
        <Field id="url" label="URL" problems={at('url')}>
          <input
            id="url"
            type="url"
            required
            value={form.url}
            placeholder="https://example.com/"
            aria-invalid={at('url').length > 0}
            onInput={(e) => set({ url: e.currentTarget.value })}
          />
        </Field>
        <div class="grid">
          <Field id="format" label="Format" problems={at('format')}>
            <select id="format" value={form.format} onChange={(e) => set({ format: e.currentTarget.value as ScrapeForm['format'] })}>
              <option value="html">html</option>
              <option value="markdown">markdown</option>
            </select>
          </Field>
          <Field id="proxy" label="Proxy" problems={at('use_proxy')} hint="Empty: none; any; or a country code you are approved for.">
            <input id="proxy" value={form.proxy} onInput={(e) => set({ proxy: e.currentTarget.value })} />
          </Field>
          <Field id="language" label="Language" problems={at('language')}>
            <input id="language" value={form.language} placeholder="en-US" onInput={(e) => set({ language: e.currentTarget.value })} />
          </Field>
          <Field id="window-size" label="Window size" problems={at('window_size')}>
            <select
              id="window-size"
              value={form.windowSize}
              onChange={(e) => set({ windowSize: e.currentTarget.value as ScrapeForm['windowSize'] })}
            >
              <option value="">default (desktop)</option>
              <option value="desktop">desktop</option>
              <option value="mobile">mobile</option>
              <option value="any">any</option>
            </select>
          </Field>
          <Field id="custom-id" label="Custom id" problems={at('custom_id')}>
            <input id="custom-id" value={form.customId} onInput={(e) => set({ customId: e.currentTarget.value })} />
          </Field>
          <Field
            id="pages"
            label="Document pages"
            problems={at('pages')}
            hint='A PDF, Word file, workbook or slides: "1-5", "8", "20-". Empty: every page (a credit each).'
          >
            <input id="pages" value={form.pages} placeholder="1-5" onInput={(e) => set({ pages: e.currentTarget.value })} />
          </Field>
          <Field id="max-pages" label="Most document pages" problems={at('max_pages')}>
            <input
              id="max-pages"
              type="number"
              min={1}
              max={2000}
              value={form.maxPages}
              onInput={(e) => set({ maxPages: e.currentTarget.value })}
            />
          </Field>
        </div>
        <fieldset class="checks">
          <legend>Options</legend>
          <Check id="browser" label="Browser mode" checked={form.browser} onChange={(browser) => set({ browser })} />
          {form.browser && (
            <label class="check" for="browser-type">
              Browser
              <select
                id="browser-type"
                value={form.browserType}
                onChange={(e) => set({ browserType: e.currentTarget.value as ScrapeForm['browserType'] })}
              >
                <option value="light">light</option>
                <option value="heavy">heavy</option>
              </select>
            </label>
          )}
          <Check id="screenshot" label="Screenshot" checked={form.screenshot} onChange={(screenshot) => set({ screenshot })} />
          <Check
            id="only-main"
            label="Only main content"
            checked={form.onlyMainContent}
            onChange={(onlyMainContent) => set({ onlyMainContent })}
          />
          <Check id="images" label="Include images" checked={form.includeImages} onChange={(includeImages) => set({ includeImages })} />
          <Check
            id="metadata"
            label="Include metadata"
            checked={form.includeMetadata}
            onChange={(includeMetadata) => set({ includeMetadata })}
          />
          <Check id="retry" label="Retry on block" checked={form.retryOnBlock} onChange={(retryOnBlock) => set({ retryOnBlock })} />
          <Check id="ocr" label="OCR scanned PDFs" checked={form.ocr} onChange={(ocr) => set({ ocr })} />
          <Check
            id="capture"
            label="Capture network"
            checked={form.networkCapture}
            onChange={(networkCapture) => set({ networkCapture })}
          />
          {[...at('browser'), ...at('screenshot'), ...at('network_capture'), ...at('retry_on_block')].map((msg) => (
            <p class="field-error" role="alert">
              {msg}
            </p>
          ))}
        </fieldset>
        {form.networkCapture && (
          <Field
            id="resource-types"
            label="Resource types to capture"
            hint="Comma separated, e.g. xhr, fetch; empty: all."
            problems={problem?.under('network_capture').map((p) => p.msg)}
          >
            <input id="resource-types" value={form.resourceTypes} onInput={(e) => set({ resourceTypes: e.currentTarget.value })} />
          </Field>
        )}
        {form.networkCapture && (
          <Field id="listen-after-load" label="Keep listening after load (ms)" problems={at('network_capture', 'listen_after_load_ms')}>
            <input
              id="listen-after-load"
              inputMode="numeric"
              value={form.listenAfterLoadMs}
              onInput={(e) => set({ listenAfterLoadMs: e.currentTarget.value })}
            />
          </Field>
        )}
        {form.proxy.trim() !== '' && (
          <fieldset class="grid">
            <legend>Proxy retries (empty: the platform's defaults)</legend>
            {PROXY_RETRY_FIELDS.map(([id, label, apiField, key]) => (
              <Field id={id} label={label} problems={at('use_proxy', apiField)}>
                <input id={id} inputMode="decimal" value={form[key]} onInput={(e) => set({ [key]: e.currentTarget.value })} />
              </Field>
            ))}
          </fieldset>
        )}
        <fieldset class="checks">
          <legend>HTTP method</legend>
          <label class="check">
            <input type="radio" name="method" checked={form.httpMethod === 'get'} onChange={() => set({ httpMethod: 'get' })} /> GET
          </label>
          <label class="check">
            <input type="radio" name="method" checked={form.httpMethod === 'post'} onChange={() => set({ httpMethod: 'post' })} /> POST
          </label>
          {form.httpMethod === 'post' && (
            <>
              <label class="check" for="content-type">
                Body as
                <select
                  id="content-type"
                  value={form.contentType}
                  onChange={(e) => set({ contentType: e.currentTarget.value as ScrapeForm['contentType'] })}
                >
                  <option value="json">json</option>
                  <option value="form">form</option>
                </select>
              </label>
              <Field id="payload" label="Payload (JSON)" problems={problem?.under('http_method').map((p) => p.msg)}>
                <textarea id="payload" rows={3} value={form.payload} onInput={(e) => set({ payload: e.currentTarget.value })} />
              </Field>
            </>
          )}
        </fieldset>
        <PairRows
          id="extract"
          legend="Extract"
          nameLabel="Name"
          valueLabel="Selector (css:, xpath: or //…)"
          rows={form.extract}
          problems={(name) => at('extract', name)}
          onChange={(extract) => set({ extract })}
        />
        {at('extract').map((msg) => (
          <p class="field-error" role="alert">
            {msg}
          </p>
        ))}
        <ActionList rows={form.actions} problem={problem} onChange={(actions) => set({ actions })} />
        {at('actions').map((msg) => (
          <p class="field-error" role="alert">
            {msg}
          </p>
        ))}
        <div class="grid">
          <PairRows
            id="headers"
            legend="Headers"
            nameLabel="Header"
            valueLabel="Value"
            rows={form.headers}
            problems={(name) => at('headers', name)}
            onChange={(headers) => set({ headers })}
          />
          <PairRows
            id="cookies"
            legend="Cookies"
            nameLabel="Cookie"
            valueLabel="Value"
            rows={form.cookies}
            problems={(name) => at('cookies', name)}
            onChange={(cookies) => set({ cookies })}
          />
        </div>
        {[...at('headers'), ...at('cookies')].map((msg) => (
          <p class="field-error" role="alert">
            {msg}
          </p>
        ))}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={scrape.pending}>
            {scrape.pending ? 'Scraping…' : 'Scrape'}
          </button>
          <button
            type="button"
            onClick={() => {
              setForm(emptyForm());
              setResult(null);
              scrape.clear();
            }}
          >
            Reset
          </button>
        </div>
        <ProblemNotice problem={problem} />
      </form>

      <details class="snippets">
        <summary>Request as code</summary>
        <Tabs
          label="Request as code"
          idPrefix="snippet"
          tabs={[
            { id: 'json', label: 'JSON', render: () => <pre class="code">{JSON.stringify(built.request, null, 2)}</pre> },
            { id: 'curl', label: 'curl', render: () => <Snippet text={curlSnippet(snippet)} label="Copy as curl" /> },
            { id: 'ts', label: 'TypeScript', render: () => <Snippet text={typeScriptSnippet(snippet)} label="Copy as TypeScript fetch" /> },
            { id: 'python', label: 'Python', render: () => <Snippet text={pythonSnippet(snippet)} label="Copy as Python" /> },
          ]}
        />
      </details>

      <div aria-live="polite">{result && <ResultView result={result} idPrefix="playground-result" />}</div>
    </div>
  );
}

function Snippet({ text, label }: { text: string; label: string }) {
  return (
    <div>
      <CopyButton text={text} label={label} />
      <pre class="code">{text}</pre>
    </div>
  );
}
