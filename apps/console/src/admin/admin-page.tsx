import { useState } from 'preact/hooks';
import { answer, api, type Schemas } from '../api/api-client';
import { DataTable } from '../ui/data-table';
import { useAction, useApi } from '../ui/use-api';
import { CopyButton, Field, formatTime, ProblemNotice } from '../ui/widgets';

type Plan = Schemas['CreateClientDto']['plan'];
const PLANS: Plan[] = ['free', 'starter', 'growth', 'pro', 'scale', 'enterprise', 'demo'];
type RequestStatus = 'pending' | 'approved' | 'denied' | 'all';
const keyOf = (r: Schemas['CountryRequestView']) => `${r.client_id}/${r.country_code}`;

/** Administrator pages: clients (create, rotate a token) and country-proxy requests (approve or deny). */
export function AdminPage() {
  return (
    <div class="page">
      <h1>Administration</h1>
      <div class="grid">
        <CreateClient />
        <RotateToken />
      </div>
      <CountryRequests />
    </div>
  );
}

function TokenOnce({ clientId, token }: { clientId: string; token: string }) {
  return (
    <div class="notice notice-ok" role="status">
      <p>
        Token of <strong>{clientId}</strong>, shown once (only its hash is stored):
      </p>
      <code class="token" data-testid="issued-token">
        {token}
      </code>{' '}
      <CopyButton text={token} label="Copy token" />
    </div>
  );
}

function CreateClient() {
  const [clientId, setClientId] = useState('');
  const [plan, setPlan] = useState<Plan>('starter');
  const [credits, setCredits] = useState('');
  const [rate, setRate] = useState('');
  const [created, setCreated] = useState<Schemas['CreatedClientDto'] | null>(null);
  const create = useAction(async () => {
    setCreated(null);
    setCreated(
      await answer(
        api.POST('/v1/admin/clients', {
          body: {
            plan,
            ...(clientId.trim() ? { client_id: clientId.trim() } : {}),
            ...(credits.trim() ? { monthly_credits: Number(credits) } : {}),
            ...(rate.trim() ? { rate_limit_per_minute: Number(rate) } : {}),
          },
        }),
      ),
    );
  });
  return (
    <form
      class="card"
      aria-labelledby="create-client-title"
      onSubmit={(e) => {
        e.preventDefault();
        void create.run();
      }}
    >
      <h2 id="create-client-title">New client</h2>
      <Field id="new-client-id" label="Client id (optional)" problems={create.problem?.at('client_id')}>
        <input id="new-client-id" value={clientId} onInput={(e) => setClientId(e.currentTarget.value)} />
      </Field>
      <Field id="new-client-plan" label="Plan" problems={create.problem?.at('plan')}>
        <select id="new-client-plan" value={plan} onChange={(e) => setPlan(e.currentTarget.value as Plan)}>
          {PLANS.map((p) => (
            <option value={p}>{p}</option>
          ))}
        </select>
      </Field>
      <Field id="new-client-credits" label="Monthly credits (optional override)" problems={create.problem?.at('monthly_credits')}>
        <input id="new-client-credits" inputMode="numeric" value={credits} onInput={(e) => setCredits(e.currentTarget.value)} />
      </Field>
      <Field id="new-client-rate" label="Requests a minute (optional override)" problems={create.problem?.at('rate_limit_per_minute')}>
        <input id="new-client-rate" inputMode="numeric" value={rate} onInput={(e) => setRate(e.currentTarget.value)} />
      </Field>
      <button type="submit" class="primary" disabled={create.pending}>
        Create client
      </button>
      <ProblemNotice problem={create.problem?.fields.length ? null : (create.problem ?? null)} />
      {created && <TokenOnce clientId={created.client_id} token={created.token} />}
    </form>
  );
}

function RotateToken() {
  const [clientId, setClientId] = useState('');
  const [rotated, setRotated] = useState<{ clientId: string; token: string } | null>(null);
  const rotate = useAction(async () => {
    setRotated(null);
    if (!window.confirm(`Rotate the token of ${clientId}? The current token stops working at once.`)) return;
    const reply = await answer(
      api.POST('/v1/admin/clients/{client_id}/rotate-token', { params: { path: { client_id: clientId.trim() } } }),
    );
    setRotated({ clientId: clientId.trim(), token: reply.token });
  });
  return (
    <form
      class="card"
      aria-labelledby="rotate-title"
      onSubmit={(e) => {
        e.preventDefault();
        void rotate.run();
      }}
    >
      <h2 id="rotate-title">Rotate a token</h2>
      <Field id="rotate-client-id" label="Client id">
        <input id="rotate-client-id" value={clientId} required onInput={(e) => setClientId(e.currentTarget.value)} />
      </Field>
      <button type="submit" disabled={rotate.pending || clientId.trim() === ''}>
        Rotate token
      </button>
      <ProblemNotice problem={rotate.problem} />
      {rotated && <TokenOnce clientId={rotated.clientId} token={rotated.token} />}
    </form>
  );
}

function CountryRequests() {
  const [status, setStatus] = useState<RequestStatus>('pending');
  const requests = useApi(() => answer(api.GET('/v1/admin/proxy/requests', { params: { query: { status } } })), [status]);
  const [notes, setNotes] = useState<Record<string, string>>({});
  const decide = useAction(async (request: Schemas['CountryRequestView'], decision: 'approve' | 'deny') => {
    const key = keyOf(request);
    await answer(
      api.POST('/v1/admin/proxy/requests/{client_id}/{country_code}', {
        params: { path: { client_id: request.client_id, country_code: request.country_code } },
        body: { decision, ...(notes[key]?.trim() ? { note: notes[key]!.trim() } : {}) },
      }),
    );
    requests.reload();
  });
  return (
    <section class="card" aria-labelledby="country-title">
      <h2 id="country-title">Country proxy requests</h2>
      <label for="country-status">
        Show{' '}
        <select id="country-status" value={status} onChange={(e) => setStatus(e.currentTarget.value as RequestStatus)}>
          {(['pending', 'approved', 'denied', 'all'] as const).map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
      </label>
      <ProblemNotice problem={requests.problem ?? decide.problem} />
      <DataTable
        caption="Country proxy requests"
        captionHidden
        rows={requests.data?.items ?? []}
        empty={requests.data ? `No ${status === 'all' ? '' : status} request.` : undefined}
        rowProps={(r) => ({ 'data-testid': `country-request-${keyOf(r)}` })}
        columns={[
          { label: 'Client', rowHeader: true, cell: (r) => r.client_id },
          { label: 'Country', cell: (r) => r.country_code },
          { label: 'Status', cell: (r) => r.status },
          { label: 'Reason', cell: (r) => r.reason ?? '' },
          { label: 'Requested', cell: (r) => formatTime(r.requested_at) },
          {
            label: 'Note',
            cell: (r) =>
              r.status === 'pending' ? (
                <input
                  aria-label={`Note for ${keyOf(r)}`}
                  value={notes[keyOf(r)] ?? ''}
                  onInput={(e) => setNotes({ ...notes, [keyOf(r)]: e.currentTarget.value })}
                />
              ) : (
                (r.note ?? '')
              ),
          },
          {
            label: 'Decision',
            cell: (r) =>
              r.status === 'pending' ? (
                <span class="row-buttons">
                  <button
                    type="button"
                    class="primary"
                    disabled={decide.pending}
                    onClick={() => void decide.run(r, 'approve')}
                    aria-label={`Approve ${keyOf(r)}`}
                  >
                    Approve
                  </button>
                  <button
                    type="button"
                    disabled={decide.pending}
                    onClick={() => void decide.run(r, 'deny')}
                    aria-label={`Deny ${keyOf(r)}`}
                  >
                    Deny
                  </button>
                </span>
              ) : (
                `${r.decided_by ?? ''} ${formatTime(r.decided_at)}`
              ),
          },
        ]}
      />
    </section>
  );
}
