import { type Client, DATABASE, type DatabaseConnection, Prisma } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ClientAlreadyExistsError, UnknownClientError } from '../gateway.errors';

/** What admission needs of a client row. */
export type ClientRow = Pick<Client, 'id' | 'plan' | 'features' | 'isAdmin' | 'rateLimitPerMinute' | 'monthlyCredits'>;

/** A client the platform makes sure of at start (admin, demo). */
export interface BootstrapClientSpec {
  clientId: string;
  plan: string;
  isAdmin: boolean;
  features: string[];
  /** A token from the environment: it becomes the client's only live token. */
  tokenFromEnvironment: string | null;
  /** Hash of a token (the environment's, or one this start would issue). */
  hash: (token: string) => string;
  /** A new clear token, when the client has no live one. */
  issue: () => string;
}

export interface BootstrapOutcome {
  clientId: string;
  token: string | null;
  source: 'environment' | 'generated' | 'stored';
}

// An advisory lock of its own: gateway replicas starting together agree on one token.
const BOOTSTRAP_LOCK_KEY = 727_100_002;

const BY_TOKEN_SQL = `select c.id, c.plan, c.features, c.is_admin as "isAdmin", c.rate_limit_per_minute as "rateLimitPerMinute", c.monthly_credits as "monthlyCredits"
  from api_tokens t join clients c on c.id = t.client_id
  where t.token_hash = $1 and t.revoked_at is null`;

/**
 * The `clients` and `api_tokens` tables, owned by the gateway; tokens are stored as SHA-256 hashes
 * only. Prisma Client for everything but the token lookup: creating clients, rotating tokens and
 * the start-up bootstrap are rare administrative writes. The lookup runs on every API call, so it
 * is one indexed join straight through the driver (docs/decisions/0012: Prisma Client doubled it).
 */
@Injectable()
export class ClientStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** The client a live (unrevoked) token hash belongs to. */
  async byTokenHash(tokenHash: string): Promise<ClientRow | null> {
    const [row] = await this.db.sql.query<ClientRow>(BY_TOKEN_SQL, [tokenHash]);
    return row ?? null;
  }

  async find(clientId: string): Promise<ClientRow | null> {
    return this.db.prisma.client.findUnique({ where: { id: clientId } });
  }

  /** A client with its first token (by hash), in one statement; ClientAlreadyExistsError when the id is taken. */
  async create(row: ClientRow, tokenHash: string): Promise<ClientRow> {
    try {
      return await this.db.prisma.client.create({ data: { ...row, tokens: { create: { id: randomUUID(), tokenHash } } } });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')
        throw new ClientAlreadyExistsError(`A client with id "${row.id}" already exists.`);
      throw error;
    }
  }

  /** Revokes every live token of the client and stores the hash of the one `issue` makes, in one transaction. */
  async replaceTokens(clientId: string, issue: (client: ClientRow) => { token: string; hash: string }): Promise<string> {
    return this.db.prisma.$transaction(async (tx) => {
      const client = await tx.client.findUnique({ where: { id: clientId } });
      if (!client) throw new UnknownClientError(`No client with id "${clientId}".`);
      const { token, hash } = issue(client);
      await tx.apiToken.updateMany({ where: { clientId, revokedAt: null }, data: { revokedAt: new Date() } });
      await tx.apiToken.create({ data: { id: randomUUID(), clientId, tokenHash: hash } });
      return token;
    });
  }

  /**
   * Makes sure each client exists with a usable token, under one advisory lock. A token from the
   * environment becomes the client's only live token; without one, a token is issued only when the
   * client has none live (its clear value is returned once; only the hash is stored).
   */
  async bootstrap(specs: BootstrapClientSpec[]): Promise<BootstrapOutcome[]> {
    return this.db.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})::text as locked`;
      const out: BootstrapOutcome[] = [];
      for (const spec of specs) {
        await tx.client.upsert({
          where: { id: spec.clientId },
          create: { id: spec.clientId, plan: spec.plan, isAdmin: spec.isAdmin, features: spec.features },
          update: {},
        });
        if (spec.tokenFromEnvironment) {
          const tokenHash = spec.hash(spec.tokenFromEnvironment);
          const owner = await tx.apiToken.findUnique({ where: { tokenHash } });
          if (owner && owner.clientId !== spec.clientId) throw new TokenOfAnotherClientError(spec.clientId);
          await tx.apiToken.updateMany({
            where: { clientId: spec.clientId, revokedAt: null, tokenHash: { not: tokenHash } },
            data: { revokedAt: new Date() },
          });
          if (!owner) await tx.apiToken.create({ data: { id: randomUUID(), clientId: spec.clientId, tokenHash } });
          else if (owner.revokedAt) await tx.apiToken.update({ where: { id: owner.id }, data: { revokedAt: null } });
          out.push({ clientId: spec.clientId, token: spec.tokenFromEnvironment, source: 'environment' });
          continue;
        }
        const live = await tx.apiToken.count({ where: { clientId: spec.clientId, revokedAt: null } });
        if (live > 0) {
          out.push({ clientId: spec.clientId, token: null, source: 'stored' });
          continue;
        }
        const token = spec.issue();
        await tx.apiToken.create({ data: { id: randomUUID(), clientId: spec.clientId, tokenHash: spec.hash(token) } });
        out.push({ clientId: spec.clientId, token, source: 'generated' });
      }
      return out;
    });
  }
}

/** The environment's token for a bootstrap client is already another client's token. */
export class TokenOfAnotherClientError extends Error {
  constructor(readonly clientId: string) {
    super(`the token configured for "${clientId}" is already the token of another client`);
  }
}
