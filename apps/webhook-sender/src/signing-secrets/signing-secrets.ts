import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
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
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
  ) {
    this.sealer = new SecretSealer(config.webhookSecretKeys.length > 0 ? config.webhookSecretKeys : [embeddedSealingKey(config.dataDir)]);
  }

  /** Secrets stored in clear (before encryption at rest) or under an older key are sealed anew. */
  async onApplicationBootstrap(): Promise<void> {
    let resealed = 0;
    for (;;) {
      const rows = await this.db.sql.query<{ client_id: string; secret: string }>(
        'select client_id, secret from webhook_secrets where secret not like $1 order by client_id limit ' + RESEAL_BATCH,
        [`sealed.v1:${this.sealer.currentKeyId}:%`],
      );
      if (rows.length === 0) break;
      for (const row of rows) {
        await this.reseal(row.client_id, row.secret, this.sealer.open(row.secret, row.client_id).plain);
        resealed += 1;
      }
    }
    if (resealed > 0) this.logger.log(`re-sealed ${resealed} webhook secret(s) under key "${this.sealer.currentKeyId}"`);
  }

  async of(clientId: string): Promise<string> {
    // Two first calls at once agree on one secret: the insert that loses keeps the winner's.
    await this.db.sql.query(
      'insert into webhook_secrets (client_id, secret, created_at) values ($1, $2, $3) on conflict (client_id) do nothing',
      [clientId, this.sealer.seal(newSecret(), clientId), this.clock.now()],
    );
    const [row] = await this.db.sql.query<{ secret: string }>('select secret from webhook_secrets where client_id = $1', [clientId]);
    const { plain, stale } = this.sealer.open(row.secret, clientId);
    if (stale) await this.reseal(clientId, row.secret, plain);
    return plain;
  }

  async rotate(clientId: string): Promise<string> {
    const secret = newSecret();
    await this.db.sql.query(
      'insert into webhook_secrets (client_id, secret, created_at, rotated_at) values ($1, $2, $3, $3) on conflict (client_id) do update set secret = excluded.secret, rotated_at = excluded.rotated_at',
      [clientId, this.sealer.seal(secret, clientId), this.clock.now()],
    );
    return secret;
  }

  /** Rewrites one stored value, unless a rotation replaced it meanwhile. */
  private async reseal(clientId: string, stored: string, plain: string): Promise<void> {
    await this.db.sql.query('update webhook_secrets set secret = $3 where client_id = $1 and secret = $2', [
      clientId,
      stored,
      this.sealer.seal(plain, clientId),
    ]);
  }
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
