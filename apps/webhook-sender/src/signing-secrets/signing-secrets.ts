import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';

/**
 * One signing secret per client (operator contract §4): made on first use — by the client asking
 * for it, or by the first delivery that needs it — and replaced by rotation. Deliveries read it at
 * send time, so a rotation holds for every attempt after it.
 */
@Injectable()
export class SigningSecrets {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async of(clientId: string): Promise<string> {
    // Two first calls at once agree on one secret: the insert that loses keeps the winner's.
    await this.db.sql.query('insert into webhook_secrets (client_id, secret, created_at) values ($1, $2, $3) on conflict (client_id) do nothing', [clientId, newSecret(), this.clock.now()]);
    const [row] = await this.db.sql.query<{ secret: string }>('select secret from webhook_secrets where client_id = $1', [clientId]);
    return row.secret;
  }

  async rotate(clientId: string): Promise<string> {
    const secret = newSecret();
    await this.db.sql.query(
      'insert into webhook_secrets (client_id, secret, created_at, rotated_at) values ($1, $2, $3, $3) on conflict (client_id) do update set secret = excluded.secret, rotated_at = excluded.rotated_at',
      [clientId, secret, this.clock.now()],
    );
    return secret;
  }
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
