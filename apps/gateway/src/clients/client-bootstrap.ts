import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { PLAN_CATALOG, PlanId } from '@lib/plans';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ClientStore, TokenOfAnotherClientError } from '../persistence/clients.store';
import { hashApiToken, issueApiToken } from './api-token';

export interface BootstrapToken {
  clientId: string;
  /** The clear token when this start knows it (from the environment or generated just now). */
  token: string | null;
  source: 'environment' | 'generated' | 'stored';
}

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
    private readonly store: ClientStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  get tokens(): BootstrapToken[] {
    return this.result;
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      this.result = await this.store.bootstrap(
        BOOTSTRAP_CLIENTS.map((spec) => ({
          clientId: spec.clientId,
          plan: spec.plan,
          isAdmin: spec.isAdmin,
          features: [...PLAN_CATALOG[spec.plan].features],
          tokenFromEnvironment: this.config[spec.configKey],
          hash: hashApiToken,
          issue: () => issueApiToken(spec.tokenPrefix),
        })),
      );
    } catch (error) {
      if (!(error instanceof TokenOfAnotherClientError)) throw error;
      const setting = error.clientId === 'admin' ? 'ADMIN_TOKEN' : 'DEMO_TOKEN';
      throw new Error(`${setting} is already the token of another client`);
    }
    this.logger.log(`bootstrap clients ready: ${this.result.map((t) => `${t.clientId} (${t.source})`).join(', ')}`);
  }
}
