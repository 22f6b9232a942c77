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

/** Clients and their hashed tokens (tables owned by the gateway). */
@Injectable()
export class ClientDirectory {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async authenticate(token: string): Promise<AuthenticatedClient | null> {
    const row = await this.db.prisma.apiToken.findUnique({ where: { tokenHash: hashApiToken(token) }, include: { client: true } });
    if (!row || row.revokedAt) return null;
    return toAuthenticatedClient(row.client);
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

function toAuthenticatedClient(row: { id: string; plan: string; features: string[]; isAdmin: boolean; rateLimitPerMinute: number | null; monthlyCredits: number | null }): AuthenticatedClient {
  const plan = (row.plan in PLAN_CATALOG ? row.plan : 'free') as PlanId;
  return {
    id: row.id,
    plan,
    features: row.features.filter(isFeature),
    isAdmin: row.isAdmin,
    limits: resolveClientLimits(plan, { rateLimitPerMinute: row.rateLimitPerMinute, monthlyCredits: row.monthlyCredits }),
  };
}
