import { DATABASE, type DatabaseConnection, type IdempotencyKey, storableJson } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

/** A key as a later request with it finds it: the first request's body fingerprint, and its response once stored. */
export type HeldKey = Pick<IdempotencyKey, 'fingerprint' | 'statusCode' | 'response'>;

/**
 * The `idempotency_keys` table, owned by the gateway. SQL through the driver: claiming a key is an
 * insert-if-absent that says whether this request won, on the path of every keyed request
 * (docs/decisions/0012).
 */
@Injectable()
export class IdempotencyKeyStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** Forgets the key when it expired, or when its first request was abandoned (no response since `abandonedBefore`). */
  async dropStale(clientId: string, key: string, now: Date, abandonedBefore: Date): Promise<void> {
    await this.db.sql.query(
      'delete from idempotency_keys where client_id = $1 and key = $2 and (expires_at <= $3 or (status_code is null and created_at < $4))',
      [clientId, key, now, abandonedBefore],
    );
  }

  /** True when this request now holds the key (no other request had it). */
  async claim(clientId: string, key: string, fingerprint: string, now: Date, expiresAt: Date): Promise<boolean> {
    const claimed = await this.db.sql.query(
      'insert into idempotency_keys (client_id, key, fingerprint, created_at, expires_at) values ($1, $2, $3, $4, $5) on conflict do nothing returning key',
      [clientId, key, fingerprint, now, expiresAt],
    );
    return claimed.length === 1;
  }

  async find(clientId: string, key: string): Promise<HeldKey | null> {
    const [row] = await this.db.sql.query<HeldKey>(
      'select fingerprint, status_code "statusCode", response from idempotency_keys where client_id = $1 and key = $2',
      [clientId, key],
    );
    return row ?? null;
  }

  /** The first request failed: let the key go, so a retry can claim it. */
  async release(clientId: string, key: string): Promise<void> {
    await this.db.sql.query('delete from idempotency_keys where client_id = $1 and key = $2 and status_code is null', [clientId, key]);
  }

  /** Keeps the first request's response for the requests that repeat the key. */
  async storeResponse(clientId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.db.sql.query('update idempotency_keys set status_code = $3, response = $4::jsonb where client_id = $1 and key = $2', [
      clientId,
      key,
      status,
      storableJson(body),
    ]);
  }
}
