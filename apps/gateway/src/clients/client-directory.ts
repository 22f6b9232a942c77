import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { ClientLimits, Feature, isFeature, PLAN_CATALOG, PlanId, resolveClientLimits } from '@lib/plans';
import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { type ClientRow, ClientStore } from '../persistence/clients.store';
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

const TOKEN_CACHE_TTL_MS = 60_000;
const TOKEN_CACHE_MAX = 10_000;

/**
 * Clients and their hashed tokens (tables owned by the gateway).
 *
 * Valid tokens are cached only on the embedded database: PGlite cannot be shared between
 * processes, so this gateway is provably the only one and its own rotations invalidate the cache
 * exactly. Against Postgres there may be many replicas, and a token rotated through one must fail
 * on all of them at once, so every call does the (sub-millisecond) lookup.
 */
@Injectable()
export class ClientDirectory {
  private readonly tokenCache: Map<string, { client: AuthenticatedClient; expiresAt: number }> | null;

  constructor(
    @Inject(DATABASE) db: DatabaseConnection,
    private readonly store: ClientStore,
  ) {
    this.tokenCache = db.kind === 'pglite' ? new Map() : null;
  }

  /** On every API call, so one indexed join straight through the driver (no ORM round trips). */
  async authenticate(token: string): Promise<AuthenticatedClient | null> {
    const tokenHash = hashApiToken(token);
    const cached = this.tokenCache?.get(tokenHash);
    if (cached && cached.expiresAt > Date.now()) return cached.client;
    const row = await this.store.byTokenHash(tokenHash);
    const client = row ? toAuthenticatedClient(row) : null;
    // Unknown tokens are not cached: guesses must not fill memory (they are rate limited per IP).
    if (client && this.tokenCache) {
      if (this.tokenCache.size >= TOKEN_CACHE_MAX) this.tokenCache.delete(this.tokenCache.keys().next().value as string);
      this.tokenCache.set(tokenHash, { client, expiresAt: Date.now() + TOKEN_CACHE_TTL_MS });
    }
    return client;
  }

  async find(clientId: string): Promise<AuthenticatedClient | null> {
    const row = await this.store.find(clientId);
    return row ? toAuthenticatedClient(row) : null;
  }

  async create(input: NewClient): Promise<{ client: AuthenticatedClient; token: string }> {
    const clientId = input.clientId ?? `client_${randomBytes(6).toString('hex')}`;
    const token = issueApiToken(input.isAdmin ? 'adm' : 'sk');
    const row = await this.store.create(
      {
        id: clientId,
        plan: input.plan,
        features: input.features ?? [...PLAN_CATALOG[input.plan].features],
        isAdmin: input.isAdmin ?? false,
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
        monthlyCredits: input.monthlyCredits ?? null,
      },
      hashApiToken(token),
    );
    return { client: toAuthenticatedClient(row), token };
  }

  /** Revokes every token of the client and issues a new one, in one transaction. */
  async rotateToken(clientId: string): Promise<string> {
    return this.store
      .replaceTokens(clientId, (client) => {
        const token = issueApiToken(client.isAdmin ? 'adm' : 'sk');
        return { token, hash: hashApiToken(token) };
      })
      .finally(() => this.forgetClient(clientId));
  }

  private forgetClient(clientId: string): void {
    if (!this.tokenCache) return;
    for (const [hash, entry] of this.tokenCache) if (entry.client.id === clientId) this.tokenCache.delete(hash);
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
