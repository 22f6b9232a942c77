import { DATABASE, DatabaseConnection, Prisma } from '@lib/persistence';
import { ClientLimits, Feature, isFeature, PLAN_CATALOG, PlanId, resolveClientLimits } from '@lib/plans';
import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { ClientAlreadyExistsError, UnknownClientError } from '../gateway.errors';
import { hashApiToken, issueApiToken } from './api-token';

/** The client a valid token belongs to, as admission and handlers see it. */
export interface AuthenticatedClient {
  id: string;
  plan: PlanId;
  features: Feature[];
  isAdmin: boolean;
  limits: ClientLimits;
}

export interface NewClient {
  clientId?: string;
  plan: PlanId;
  features?: Feature[];
  isAdmin?: boolean;
  rateLimitPerMinute?: number | null;
  monthlyCredits?: number | null;
}

const AUTHENTICATE_SQL = `select c.id, c.plan, c.features, c.is_admin as "isAdmin", c.rate_limit_per_minute as "rateLimitPerMinute", c.monthly_credits as "monthlyCredits"
  from api_tokens t join clients c on c.id = t.client_id
  where t.token_hash = $1 and t.revoked_at is null`;

interface ClientRow {
  id: string;
  plan: string;
  features: string[];
  isAdmin: boolean;
  rateLimitPerMinute: number | null;
  monthlyCredits: number | null;
}

/** Clients and their hashed tokens (tables owned by the gateway). */
@Injectable()
export class ClientDirectory {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** On every API call, so one indexed join straight through the driver (no ORM round trips). */
  async authenticate(token: string): Promise<AuthenticatedClient | null> {
    const [row] = await this.db.sql.query<ClientRow>(AUTHENTICATE_SQL, [hashApiToken(token)]);
    return row ? toAuthenticatedClient(row) : null;
  }

  async find(clientId: string): Promise<AuthenticatedClient | null> {
    const row = await this.db.prisma.client.findUnique({ where: { id: clientId } });
    return row ? toAuthenticatedClient(row) : null;
  }

  async create(input: NewClient): Promise<{ client: AuthenticatedClient; token: string }> {
    const clientId = input.clientId ?? `client_${randomBytes(6).toString('hex')}`;
    const token = issueApiToken(input.isAdmin ? 'adm' : 'sk');
    try {
      const row = await this.db.prisma.client.create({
        data: {
          id: clientId,
          plan: input.plan,
          features: input.features ?? [...PLAN_CATALOG[input.plan].features],
          isAdmin: input.isAdmin ?? false,
          rateLimitPerMinute: input.rateLimitPerMinute ?? null,
          monthlyCredits: input.monthlyCredits ?? null,
          tokens: { create: { id: randomUUID(), tokenHash: hashApiToken(token) } },
        },
      });
      return { client: toAuthenticatedClient(row), token };
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw new ClientAlreadyExistsError(`A client with id "${clientId}" already exists.`);
      }
      throw error;
    }
  }

  /** Revokes every token of the client and issues a new one, in one transaction. */
  async rotateToken(clientId: string): Promise<string> {
    return this.db.prisma.$transaction(async (tx) => {
      const client = await tx.client.findUnique({ where: { id: clientId } });
      if (!client) throw new UnknownClientError(`No client with id "${clientId}".`);
      const token = issueApiToken(client.isAdmin ? 'adm' : 'sk');
      await tx.apiToken.updateMany({ where: { clientId, revokedAt: null }, data: { revokedAt: new Date() } });
      await tx.apiToken.create({ data: { id: randomUUID(), clientId, tokenHash: hashApiToken(token) } });
      return token;
    });
  }
}

function toAuthenticatedClient(row: ClientRow): AuthenticatedClient {
  const plan = (row.plan in PLAN_CATALOG ? row.plan : 'free') as PlanId;
  return {
    id: row.id,
    plan,
    features: row.features.filter(isFeature),
    isAdmin: row.isAdmin,
    limits: resolveClientLimits(plan, { rateLimitPerMinute: row.rateLimitPerMinute, monthlyCredits: row.monthlyCredits }),
  };
}
