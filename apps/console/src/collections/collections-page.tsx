import { useMemo, useState } from 'preact/hooks';
import { answer, api, type Schemas } from '../api/api-client';
import { navigate } from '../ui/router';
import { DataTable } from '../ui/data-table';
import { useAction, useApi } from '../ui/use-api';
import { Field, formatTime, ProblemNotice } from '../ui/widgets';
import { parseRequestList, type SharedOptions } from './request-list';

/** The client's collections, and a new one from pasted URLs or a CSV/JSON file. */
export function CollectionsPage() {
  const collections = useApi(() => answer(api.GET('/v1/async/collections')), []);
  return (
    <div class="page">
      <h1>Collections</h1>
      <CreateCollection onCreated={collections.reload} />
      <h2>Your collections</h2>
      <ProblemNotice problem={collections.problem} />
      <DataTable
        caption="Collections"
        captionHidden
        rows={collections.data ?? []}
        empty={collections.data ? 'No collection yet.' : undefined}
        columns={[
          { label: 'Name', rowHeader: true, cell: (c) => <a href={`#/collections/${c.id}`}>{c.name}</a> },
          { label: 'Requests', cell: (c) => c.request_count },
          { label: 'Callback', className: 'url', cell: (c) => c.callback_url ?? '—' },
          { label: 'Updated', cell: (c) => formatTime(c.updated_at) },
        ]}
      />
    </div>
  );
}

function CreateCollection({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [callbackUrl, setCallbackUrl] = useState('');
  const [list, setList] = useState('');
  const [options, setOptions] = useState<SharedOptions>({ format: 'markdown', browser: false });
  const [reply, setReply] = useState<Schemas['CollectionWriteReply'] | null>(null);
  const parsed = useMemo(() => parseRequestList(list, options), [list, options]);
  const create = useAction(async () => {
    const created = await answer(
      api.POST('/v1/async/collections', {
        body: { name: name.trim(), requests: parsed.requests, ...(callbackUrl.trim() ? { callback_url: callbackUrl.trim() } : {}) },
      }),
    );
    setReply(created);
    onCreated();
  });
  const readFile = async (file: File | undefined) => {
    if (file) setList(await file.text());
  };
  return (
    <form
      class="card"
      aria-labelledby="create-collection-title"
      onSubmit={(e) => {
        e.preventDefault();
        void create.run();
      }}
    >
      <h2 id="create-collection-title">New collection</h2>
      <div class="grid">
        <Field id="collection-name" label="Name" problems={create.problem?.at('name')}>
          <input id="collection-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field id="collection-callback" label="Callback URL (optional)" problems={create.problem?.at('callback_url')}>
          <input id="collection-callback" type="url" value={callbackUrl} onInput={(e) => setCallbackUrl(e.currentTarget.value)} />
        </Field>
      </div>
      <Field
        id="collection-list"
        label="URLs, CSV or JSON"
        hint="One URL a line; CSV with a url column (custom_id, format, browser read too); or a JSON array of URLs or requests."
      >
        <textarea id="collection-list" rows={6} value={list} onInput={(e) => setList(e.currentTarget.value)} />
      </Field>
      <Field id="collection-file" label="…or a CSV or JSON file">
        <input
          id="collection-file"
          type="file"
          accept=".csv,.json,.txt,text/csv,application/json,text/plain"
          onChange={(e) => void readFile(e.currentTarget.files?.[0])}
        />
      </Field>
      <fieldset class="checks">
        <legend>For each bare URL</legend>
        <label class="check" for="collection-format">
          Format
          <select
            id="collection-format"
            value={options.format}
            onChange={(e) => setOptions({ ...options, format: e.currentTarget.value as SharedOptions['format'] })}
          >
            <option value="html">html</option>
            <option value="markdown">markdown</option>
          </select>
        </label>
        <label class="check" for="collection-browser">
          <input
            id="collection-browser"
            type="checkbox"
            checked={options.browser}
            onChange={(e) => setOptions({ ...options, browser: e.currentTarget.checked })}
          />
          Browser mode
        </label>
      </fieldset>
      <p class="hint">{parsed.requests.length} requests read.</p>
      {parsed.unreadable.length > 0 && (
        <ul class="field-error" role="alert">
          {parsed.unreadable.map((u) => (
            <li>{u}</li>
          ))}
        </ul>
      )}
      <button type="submit" class="primary" disabled={create.pending || parsed.requests.length === 0}>
        Create collection
      </button>
      <ProblemNotice problem={create.problem} />
      {create.problem && create.problem.fields.length > 0 && (
        <ul class="problems">
          {create.problem.fields.map((p) => (
            <li>
              {p.loc.slice(1).join('.')}: {p.msg}
            </li>
          ))}
        </ul>
      )}
      {reply && <CreationReport reply={reply} />}
    </form>
  );
}

function CreationReport({ reply }: { reply: Schemas['CollectionWriteReply'] }) {
  return (
    <div class="notice notice-ok" role="status">
      <p>
        <strong>{reply.message}</strong> <a href={`#/collections/${reply.id}`}>Open {reply.name}</a>
      </p>
      {reply.blocked_urls.length > 0 && (
        <details open>
          <summary>{reply.blocked_urls.length} blocked</summary>
          <ul>
            {reply.blocked_urls.map((b) => (
              <li>
                #{b.index} <span class="url">{b.url}</span> — {b.reason}: {b.message}
              </li>
            ))}
          </ul>
        </details>
      )}
      {reply.invalid_items.length > 0 && (
        <details open>
          <summary>{reply.invalid_items.length} invalid</summary>
          <ul>
            {reply.invalid_items.map((item) => (
              <li>
                #{item.index} <span class="url">{item.url ?? '(no url)'}</span>:{' '}
                {item.errors.map((e) => Object.values(e).join(' ')).join('; ')}
              </li>
            ))}
          </ul>
        </details>
      )}
      {reply.duplicate_urls.length > 0 && (
        <details open>
          <summary>{reply.duplicates_skipped} duplicates skipped</summary>
          <ul>
            {reply.duplicate_urls.map((u) => (
              <li class="url">{u}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

/** One collection: its runs, and a button to start another. */
export function CollectionPage({ collectionId }: { collectionId: string }) {
  const path = { collection_id: collectionId };
  const collection = useApi(() => answer(api.GET('/v1/async/collections/{collection_id}', { params: { path } })), [collectionId]);
  const runs = useApi(() => answer(api.GET('/v1/async/collections/{collection_id}/runs', { params: { path } })), [collectionId]);
  const start = useAction(async () => {
    const run = await answer(api.POST('/v1/async/collections/{collection_id}/run', { params: { path } }));
    navigate('collections', collectionId, 'runs', run.run_id);
  });
  const c = collection.data;
  return (
    <div class="page">
      <p>
        <a href="#/collections">← Collections</a>
      </p>
      <h1>{c?.name ?? 'Collection'}</h1>
      <ProblemNotice problem={collection.problem} />
      {c && (
        <dl class="facts">
          <dt>Id</dt>
          <dd>{c.id}</dd>
          <dt>Requests</dt>
          <dd>{c.request_count}</dd>
          <dt>Callback</dt>
          <dd class="url">{c.callback_url ?? '—'}</dd>
          <dt>Created</dt>
          <dd>{formatTime(c.created_at)}</dd>
        </dl>
      )}
      <button type="button" class="primary" disabled={start.pending} onClick={() => void start.run()}>
        Start a run
      </button>
      <ProblemNotice problem={start.problem} />
      <h2>Runs</h2>
      <ProblemNotice problem={runs.problem} />
      <DataTable
        caption="Runs"
        captionHidden
        rows={runs.data?.items ?? []}
        empty={runs.data ? 'No run yet.' : undefined}
        columns={[
          { label: 'Run', rowHeader: true, cell: (run) => <a href={`#/collections/${collectionId}/runs/${run.run_id}`}>{run.run_id}</a> },
          { label: 'Status', cell: (run) => run.status },
          {
            label: 'Done',
            cell: (run) =>
              `${run.success_requests + run.failed_requests + run.timeout_requests + run.cancelled_requests} / ${run.total_requests}`,
          },
          { label: 'Credits', cell: (run) => run.credits_charged ?? 0 },
          { label: 'Started', cell: (run) => formatTime(run.created_at) },
        ]}
      />
    </div>
  );
}
