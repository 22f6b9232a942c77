import { AppError } from '@lib/errors';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { IdempotencyKeyStore } from '../persistence/idempotency-keys.store';

export class InvalidIdempotencyKeyError extends AppError {
  readonly code = 'idempotency.invalid_key';
}

export class IdempotencyKeyReusedError extends AppError {
  readonly code = 'idempotency.key_reused';
}

export class IdempotencyKeyInFlightError extends AppError {
  readonly code = 'idempotency.in_flight';
}

export interface StoredResponse<B = unknown> {
  status: number;
  body: B;
}

const KEEP_MS = 24 * 3_600_000;
const PARALLEL_WAIT_MS = 30_000;
const POLL_MS = 50;
// A first request whose gateway died never stores its response; after this its key is free again.
const ABANDONED_AFTER_MS = 5 * 60_000;

/**
 * Idempotency-Key on collection create (spec 4.3), per client, kept 24 h. The first request with
 * a key claims it with an insert (the primary key makes the claim atomic across replicas), does the
 * work and stores the response; a repeat with the same body gets that response again; a parallel
 * repeat waits for it (up to 30 s, then 409); a repeat with another body gets 422. A first request
 * that fails stores nothing, so the key can be used again.
 */
@Injectable()
export class IdempotencyKeys {
  constructor(
    private readonly store: IdempotencyKeyStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  static assertWellFormed(key: string): void {
    if (key.length === 0 || key.length > 200 || /[\s:]/.test(key)) {
      throw new InvalidIdempotencyKeyError('Idempotency-Key must be 1 to 200 characters without whitespace or ":".');
    }
  }

  /** `parallelWaitMs`: how long a duplicate waits for the first request (spec: 30 s). */
  async once<B>(
    clientId: string,
    key: string,
    body: unknown,
    work: () => Promise<StoredResponse<B>>,
    parallelWaitMs = PARALLEL_WAIT_MS,
  ): Promise<StoredResponse<B> & { replayed: boolean }> {
    IdempotencyKeys.assertWellFormed(key);
    const fingerprint = createHash('sha256').update(canonicalJson(body)).digest('hex');
    const waitUntil = Date.now() + parallelWaitMs;
    for (;;) {
      const now = this.clock.now();
      await this.store.dropStale(clientId, key, now, new Date(now.getTime() - ABANDONED_AFTER_MS));
      const claimed = await this.store.claim(clientId, key, fingerprint, now, new Date(now.getTime() + KEEP_MS));
      if (claimed) return { ...(await this.firstRequest(clientId, key, work)), replayed: false };

      const row = await this.store.find(clientId, key);
      if (!row) continue; // the holder failed and let go meanwhile: try to claim it again
      if (row.fingerprint !== fingerprint) {
        throw new IdempotencyKeyReusedError(
          'This Idempotency-Key was already used with a different request body; use a new key for a different request.',
        );
      }
      // Stored by `work` of the one route that takes keys (collection create), for this client.
      if (row.statusCode !== null) return { status: row.statusCode, body: row.response as B, replayed: true };
      if (Date.now() >= waitUntil) {
        throw new IdempotencyKeyInFlightError(
          'A request with this Idempotency-Key is still being processed after 30 s; retry later to get its response.',
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private async firstRequest<B>(clientId: string, key: string, work: () => Promise<StoredResponse<B>>): Promise<StoredResponse<B>> {
    let response: StoredResponse<B>;
    try {
      response = await work();
    } catch (error) {
      await this.store.release(clientId, key);
      throw error;
    }
    await this.store.storeResponse(clientId, key, response.status, response.body);
    return response;
  }
}

/** JSON with object keys sorted, so the same body in another key order is the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
