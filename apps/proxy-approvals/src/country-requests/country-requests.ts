import {
  CountryRequestStatus,
  CountryRequestView,
  DecideCountryRequestCommand,
  ProxyStatusReply,
  RequestCountryCommand,
  OPS_SUBJECTS,
  RequestCountryReply,
} from '@lib/contracts';
import { OpsEventPublisher } from '@lib/messaging';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { CountryCatalog } from '../country-catalog/country-catalog';
import { type CountryRequestRow, CountryRequestStore } from '../persistence/country-requests.store';
import { CountryRequestNotFoundError, UnknownCountryError } from '../proxy-approvals.errors';

/**
 * Country proxy approvals (spec 3.5, operator contract §3): a client asks, an administrator
 * approves or denies with a note, and the decision holds for the client's next scrape (the
 * gateway asks on every request that names a country; nothing is cached).
 */
@Injectable()
export class CountryRequests {
  constructor(
    private readonly store: CountryRequestStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly catalog: CountryCatalog,
    @Inject(OpsEventPublisher) private readonly ops: OpsEventPublisher,
  ) {}

  async request(command: RequestCountryCommand): Promise<RequestCountryReply> {
    this.assertCountry(command.country_code);
    // A new request, or a denied one asked for again, goes (back) to pending; an approved one stays.
    const at = this.clock.now();
    const status = await this.store.request(command.client_id, command.country_code, command.reason ?? null, at);
    const approved = status === 'approved';
    // Written (the upsert has committed): an administrator has a request to review.
    if (!approved)
      this.ops.publish(OPS_SUBJECTS.countryProxyRequested, {
        client_id: command.client_id,
        country: command.country_code,
        reason: command.reason ?? null,
        requested_at: at.toISOString(),
      });
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
    const rows = await this.store.ofClient(clientId);
    return {
      client_id: clientId,
      approved_countries: rows.filter((r) => r.status === 'approved').map((r) => r.countryCode),
      pending_countries: rows.filter((r) => r.status === 'pending').map((r) => r.countryCode),
      denied_countries: rows
        .filter((r) => r.status === 'denied')
        .map((r) => ({
          country_code: r.countryCode,
          note: r.note,
          decided_at: r.decidedAt ? new Date(r.decidedAt).toISOString() : null,
        })),
      error: null,
    };
  }

  async isApproved(clientId: string, countryCode: string): Promise<boolean> {
    return this.store.isApproved(clientId, countryCode);
  }

  async list(status: CountryRequestStatus | 'all'): Promise<{ items: CountryRequestView[]; total: number }> {
    const rows = await this.store.list(status);
    return { items: rows.map(viewOf), total: rows.length };
  }

  async decide(command: DecideCountryRequestCommand): Promise<CountryRequestView> {
    this.assertCountry(command.country_code);
    const row = await this.store.decide(command.client_id, command.country_code, {
      status: command.decision === 'approve' ? 'approved' : 'denied',
      note: command.note ?? null,
      decidedAt: this.clock.now(),
      decidedBy: command.decided_by,
    });
    if (!row)
      throw new CountryRequestNotFoundError(`Client ${command.client_id} has not requested the ${command.country_code} proxy pool.`);
    this.ops.publish(OPS_SUBJECTS.countryProxyDecided, {
      client_id: row.clientId,
      country: row.countryCode,
      status: row.status,
      note: row.note,
      decided_by: row.decidedBy,
    });
    return viewOf(row);
  }

  private assertCountry(code: string): void {
    if (!this.catalog.isCountry(code))
      throw new UnknownCountryError(`${code} is not an ISO 3166-1 alpha-2 country code (GET /v1/proxy/countries lists them).`);
  }
}

function viewOf(row: CountryRequestRow): CountryRequestView {
  return {
    client_id: row.clientId,
    country_code: row.countryCode,
    status: row.status,
    reason: row.reason,
    note: row.note,
    requested_at: new Date(row.requestedAt).toISOString(),
    decided_at: row.decidedAt ? new Date(row.decidedAt).toISOString() : null,
    decided_by: row.decidedBy,
  };
}
