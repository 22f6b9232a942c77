import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { WebhookSecretStore } from '../persistence/webhook-secrets.store';
import { embeddedSealingKey, SecretSealer } from './secret-sealer';

const RESEAL_BATCH = 500;

/**
 * One signing secret per client (operator contract §4): made on first use — by the client asking
 * for it, or by the first delivery that needs it — and replaced by rotation. Deliveries read it at
 * send time, so a rotation holds for every attempt after it. Stored sealed (SecretSealer): a copy
 * of the database alone does not give anyone the power to forge webhooks.
 */
@Injectable()
export class SigningSecrets implements OnApplicationBootstrap {
  private readonly logger = new Logger('SigningSecrets');
  private readonly sealer: SecretSealer;

  constructor(
    private readonly store: WebhookSecretStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
  ) {
    this.sealer = new SecretSealer(config.webhookSecretKeys.length > 0 ? config.webhookSecretKeys : [embeddedSealingKey(config.dataDir)]);
  }

  /** Secrets stored in clear (before encryption at rest) or under an older key are sealed anew. */
  async onApplicationBootstrap(): Promise<void> {
    let resealed = 0;
    for (;;) {
      const rows = await this.store.notSealedWith(`sealed.v1:${this.sealer.currentKeyId}:`, RESEAL_BATCH);
      if (rows.length === 0) break;
      for (const row of rows) {
        await this.reseal(row.clientId, row.secret, this.sealer.open(row.secret, row.clientId).plain);
        resealed += 1;
      }
    }
    if (resealed > 0) this.logger.log(`re-sealed ${resealed} webhook secret(s) under key "${this.sealer.currentKeyId}"`);
  }

  async of(clientId: string): Promise<string> {
    let sealed = await this.store.sealedOf(clientId);
    if (sealed === null) {
      // Two first calls at once agree on one secret: the insert that loses keeps the winner's.
      await this.store.insertIfAbsent(clientId, this.sealer.seal(newSecret(), clientId), this.clock.now());
      sealed = (await this.store.sealedOf(clientId))!;
    }
    const { plain, stale } = this.sealer.open(sealed, clientId);
    if (stale) await this.reseal(clientId, sealed, plain);
    return plain;
  }

  async rotate(clientId: string): Promise<string> {
    const secret = newSecret();
    await this.store.replace(clientId, this.sealer.seal(secret, clientId), this.clock.now());
    return secret;
  }

  /** Rewrites one stored value, unless a rotation replaced it meanwhile. */
  private async reseal(clientId: string, stored: string, plain: string): Promise<void> {
    await this.store.reseal(clientId, stored, this.sealer.seal(plain, clientId));
  }
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
