import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { PLAN_CATALOG, PlanId } from '@lib/plans';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hashApiToken, issueApiToken } from './api-token';

export interface BootstrapToken {
  clientId: string;
  /** The clear token when this start knows it (from the environment or generated just now). */
  token: string | null;
  source: 'environment' | 'generated' | 'stored';
}

const BOOTSTRAP_LOCK_KEY = 727_100_002;

const BOOTSTRAP_CLIENTS: Array<{
  clientId: string;
  plan: PlanId;
  isAdmin: boolean;
  tokenPrefix: string;
  configKey: 'adminToken' | 'demoToken';
}> = [
  { clientId: 'admin', plan: 'enterprise', isAdmin: true, tokenPrefix: 'adm', configKey: 'adminToken' },
  { clientId: 'demo', plan: 'demo', isAdmin: false, tokenPrefix: 'demo', configKey: 'demoToken' },
];

/**
 * Makes sure the administrator and demo clients exist with a usable token. A token from
 * ADMIN_TOKEN / DEMO_TOKEN becomes the client's only token; without one, a token is generated
 * once, printed by the start-up banner, and only its hash is stored. Runs under an advisory lock
 * so that gateway replicas starting together agree on one token.
 */
@Injectable()
export class ClientBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('ClientBootstrap');
  private result: BootstrapToken[] = [];

  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  get tokens(): BootstrapToken[] {
    return this.result;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.result = await this.db.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})::text as locked`;
      const out: BootstrapToken[] = [];
      for (const spec of BOOTSTRAP_CLIENTS) {
        await tx.client.upsert({
          where: { id: spec.clientId },
          create: { id: spec.clientId, plan: spec.plan, isAdmin: spec.isAdmin, features: [...PLAN_CATALOG[spec.plan].features] },
          update: {},
        });
        const fromEnv = this.config[spec.configKey];
        if (fromEnv) {
          const tokenHash = hashApiToken(fromEnv);
          const owner = await tx.apiToken.findUnique({ where: { tokenHash } });
          if (owner && owner.clientId !== spec.clientId)
            throw new Error(`${spec.configKey === 'adminToken' ? 'ADMIN_TOKEN' : 'DEMO_TOKEN'} is already the token of another client`);
          await tx.apiToken.updateMany({
            where: { clientId: spec.clientId, revokedAt: null, tokenHash: { not: tokenHash } },
            data: { revokedAt: new Date() },
          });
          if (!owner) await tx.apiToken.create({ data: { id: randomUUID(), clientId: spec.clientId, tokenHash } });
          else if (owner.revokedAt) await tx.apiToken.update({ where: { id: owner.id }, data: { revokedAt: null } });
          out.push({ clientId: spec.clientId, token: fromEnv, source: 'environment' });
          continue;
        }
        const live = await tx.apiToken.count({ where: { clientId: spec.clientId, revokedAt: null } });
        if (live > 0) {
          out.push({ clientId: spec.clientId, token: null, source: 'stored' });
          continue;
        }
        const token = issueApiToken(spec.tokenPrefix);
        await tx.apiToken.create({ data: { id: randomUUID(), clientId: spec.clientId, tokenHash: hashApiToken(token) } });
        out.push({ clientId: spec.clientId, token, source: 'generated' });
      }
      return out;
    });
    this.logger.log(`bootstrap clients ready: ${this.result.map((t) => `${t.clientId} (${t.source})`).join(', ')}`);
  }
}
