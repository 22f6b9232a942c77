import type { CountryRequestStatus } from '@lib/contracts';
import { type CountryProxyRequest, DATABASE, type DatabaseConnection, Prisma } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

export type CountryRequestRow = Omit<CountryProxyRequest, 'status'> & { status: CountryRequestStatus };

/**
 * The `country_proxy_requests` table, owned by proxy-approvals. Prisma Client for the reviews and
 * listings (administrative, rare); SQL through the driver for the two statements Prisma Client
 * cannot express or would slow: the conditional upsert of a request (an approved request stays
 * approved) and the approval check the gateway makes on every request that names a country
 * (docs/decisions/0012).
 */
@Injectable()
export class CountryRequestStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** A new request, or a denied one asked for again, goes (back) to pending; an approved one stays. Returns the status after. */
  async request(clientId: string, countryCode: string, reason: string | null, at: Date): Promise<CountryRequestStatus> {
    const [row] = await this.db.sql.query<{ status: CountryRequestStatus }>(
      `insert into country_proxy_requests (client_id, country_code, status, reason, requested_at) values ($1, $2, 'pending', $3, $4)
       on conflict (client_id, country_code) do update set
         status = case when country_proxy_requests.status = 'approved' then 'approved' else 'pending' end,
         reason = case when country_proxy_requests.status = 'approved' then country_proxy_requests.reason else excluded.reason end,
         requested_at = case when country_proxy_requests.status = 'approved' then country_proxy_requests.requested_at else excluded.requested_at end
       returning status`,
      [clientId, countryCode, reason, at],
    );
    return row.status;
  }

  async isApproved(clientId: string, countryCode: string): Promise<boolean> {
    const rows = await this.db.sql.query(
      "select 1 as ok from country_proxy_requests where client_id = $1 and country_code = $2 and status = 'approved'",
      [clientId, countryCode],
    );
    return rows.length === 1;
  }

  async ofClient(clientId: string): Promise<CountryRequestRow[]> {
    return (await this.db.prisma.countryProxyRequest.findMany({
      where: { clientId },
      orderBy: { countryCode: 'asc' },
    })) as CountryRequestRow[];
  }

  /** Oldest request first; `status` filters ('all': every request). */
  async list(status: CountryRequestStatus | 'all'): Promise<CountryRequestRow[]> {
    return (await this.db.prisma.countryProxyRequest.findMany({
      where: status === 'all' ? {} : { status },
      orderBy: [{ requestedAt: 'asc' }, { clientId: 'asc' }, { countryCode: 'asc' }],
    })) as CountryRequestRow[];
  }

  /** Records an administrator's decision; null when the client never asked for the country. */
  async decide(
    clientId: string,
    countryCode: string,
    decision: Pick<CountryProxyRequest, 'note' | 'decidedAt' | 'decidedBy'> & { status: 'approved' | 'denied' },
  ): Promise<CountryRequestRow | null> {
    try {
      return (await this.db.prisma.countryProxyRequest.update({
        where: { clientId_countryCode: { clientId, countryCode } },
        data: decision,
      })) as CountryRequestRow;
    } catch (error) {
      // P2025: no such row to update.
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') return null;
      throw error;
    }
  }
}
