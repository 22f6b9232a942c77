import {
  CountryRequestStatus,
  CountryRequestView,
  DecideCountryRequestCommand,
  ProxyStatusReply,
  RequestCountryCommand,
  RequestCountryReply,
} from '@lib/contracts';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { CountryCatalog } from '../country-catalog/country-catalog';
import { CountryRequestNotFoundError, UnknownCountryError } from '../proxy-approvals.errors';

interface RequestRow {
  client_id: string;
  country_code: string;
  status: CountryRequestStatus;
  reason: string | null;
  note: string | null;
  requested_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
}

/**
 * Country proxy approvals (spec 3.5, operator contract §3): a client asks, an administrator
 * approves or denies with a note, and the decision holds for the client's next scrape (the
 * gateway asks on every request that names a country; nothing is cached).
 */
@Injectable()
export class CountryRequests {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly catalog: CountryCatalog,
  ) {}

  async request(command: RequestCountryCommand): Promise<RequestCountryReply> {
    this.assertCountry(command.country_code);
    // A new request, or a denied one asked for again, goes (back) to pending; an approved one stays.
    const [row] = await this.db.sql.query<{ status: CountryRequestStatus }>(
      `insert into country_proxy_requests (client_id, country_code, status, reason, requested_at) values ($1, $2, 'pending', $3, $4)
       on conflict (client_id, country_code) do update set
         status = case when country_proxy_requests.status = 'approved' then 'approved' else 'pending' end,
         reason = case when country_proxy_requests.status = 'approved' then country_proxy_requests.reason else excluded.reason end,
         requested_at = case when country_proxy_requests.status = 'approved' then country_proxy_requests.requested_at else excluded.requested_at end
       returning status`,
      [command.client_id, command.country_code, command.reason ?? null, this.clock.now()],
    );
    const approved = row.status === 'approved';
    return {
      client_id: command.client_id,
      country_code: command.country_code,
      status: approved ? 'already_approved' : 'pending',
      message: approved
        ? `The ${command.country_code} proxy pool is already approved; use "use_proxy": "${command.country_code}".`
        : `Requested: an administrator reviews access to the ${command.country_code} proxy pool. GET /v1/proxy/status shows the decision.`,
    };
  }

  async status(clientId: string): Promise<ProxyStatusReply> {
    const rows = await this.db.sql.query<RequestRow>('select * from country_proxy_requests where client_id = $1 order by country_code', [
      clientId,
    ]);
    return {
      client_id: clientId,
      approved_countries: rows.filter((r) => r.status === 'approved').map((r) => r.country_code),
      pending_countries: rows.filter((r) => r.status === 'pending').map((r) => r.country_code),
      denied_countries: rows
        .filter((r) => r.status === 'denied')
        .map((r) => ({
          country_code: r.country_code,
          note: r.note,
          decided_at: r.decided_at ? new Date(r.decided_at).toISOString() : null,
        })),
      error: null,
    };
  }

  async isApproved(clientId: string, countryCode: string): Promise<boolean> {
    const rows = await this.db.sql.query(
      "select 1 as ok from country_proxy_requests where client_id = $1 and country_code = $2 and status = 'approved'",
      [clientId, countryCode],
    );
    return rows.length === 1;
  }

  async list(status: CountryRequestStatus | 'all'): Promise<{ items: CountryRequestView[]; total: number }> {
    const rows =
      status === 'all'
        ? await this.db.sql.query<RequestRow>('select * from country_proxy_requests order by requested_at, client_id, country_code')
        : await this.db.sql.query<RequestRow>(
            'select * from country_proxy_requests where status = $1 order by requested_at, client_id, country_code',
            [status],
          );
    return { items: rows.map(viewOf), total: rows.length };
  }

  async decide(command: DecideCountryRequestCommand): Promise<CountryRequestView> {
    this.assertCountry(command.country_code);
    const [row] = await this.db.sql.query<RequestRow>(
      'update country_proxy_requests set status = $3, note = $4, decided_at = $5, decided_by = $6 where client_id = $1 and country_code = $2 returning *',
      [
        command.client_id,
        command.country_code,
        command.decision === 'approve' ? 'approved' : 'denied',
        command.note ?? null,
        this.clock.now(),
        command.decided_by,
      ],
    );
    if (!row)
      throw new CountryRequestNotFoundError(`Client ${command.client_id} has not requested the ${command.country_code} proxy pool.`);
    return viewOf(row);
  }

  private assertCountry(code: string): void {
    if (!this.catalog.isCountry(code))
      throw new UnknownCountryError(`${code} is not an ISO 3166-1 alpha-2 country code (GET /v1/proxy/countries lists them).`);
  }
}

function viewOf(row: RequestRow): CountryRequestView {
  return {
    client_id: row.client_id,
    country_code: row.country_code,
    status: row.status,
    reason: row.reason,
    note: row.note,
    requested_at: new Date(row.requested_at).toISOString(),
    decided_at: row.decided_at ? new Date(row.decided_at).toISOString() : null,
    decided_by: row.decided_by,
  };
}
