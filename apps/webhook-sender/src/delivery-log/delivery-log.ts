import { RunDeliveriesReference, WebhookDeliveryLog } from '@lib/contracts';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { DeliveryInProgressError, WebhookNotFoundError } from '../webhook-sender.errors';

interface OutboxRow {
  id: string;
  run_id: string;
  callback_url: string;
  status: string;
  next_attempt_at: Date | null;
}

/**
 * A run's webhook as its owner sees it: every attempt (number, time, status code or error,
 * latency, outcome), and redelivery on demand — neither is in the spec; both are what users of
 * the peers ask for.
 */
@Injectable()
export class DeliveryLog {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async of(ref: RunDeliveriesReference): Promise<WebhookDeliveryLog> {
    const [row] = await this.db.sql.query<OutboxRow>(
      "select id, run_id, callback_url, status, next_attempt_at from webhook_outbox where run_id = $1 and client_id = $2 and payload->>'collection_id' = $3",
      [ref.run_id, ref.client_id, ref.collection_id],
    );
    if (!row) throw notFound(ref.run_id);
    const attempts = await this.db.sql.query<{
      attempt: number;
      manual: boolean;
      attempted_at: Date;
      status_code: number | null;
      error: string | null;
      latency_ms: number;
      outcome: string;
    }>(
      'select attempt, manual, attempted_at, status_code, error, latency_ms, outcome from webhook_deliveries where outbox_id = $1 order by attempt',
      [row.id],
    );
    return {
      delivery_id: row.id,
      run_id: row.run_id,
      callback_url: row.callback_url,
      status: row.status,
      next_attempt_at: row.next_attempt_at ? new Date(row.next_attempt_at).toISOString() : null,
      attempts: attempts.map((a) => ({ ...a, attempted_at: new Date(a.attempted_at).toISOString() })),
    };
  }

  /** Schedules one attempt now (outside the retry schedule, which it replaces). */
  async redeliver(ref: RunDeliveriesReference): Promise<WebhookDeliveryLog> {
    const now = this.clock.now();
    const [row] = await this.db.sql.query<{ id: string; free: boolean }>(
      "select id, (lease_until is null or lease_until < $4) as free from webhook_outbox where run_id = $1 and client_id = $2 and payload->>'collection_id' = $3",
      [ref.run_id, ref.client_id, ref.collection_id, now],
    );
    if (!row) throw notFound(ref.run_id);
    const scheduled = await this.db.sql.query(
      'update webhook_outbox set next_attempt_at = $2, manual = true where id = $1 and (lease_until is null or lease_until < $2) returning id',
      [row.id, now],
    );
    if (!row.free || scheduled.length === 0)
      throw new DeliveryInProgressError('An attempt of this webhook is under way; ask again when it has finished.');
    return this.of(ref);
  }
}

function notFound(runId: string): WebhookNotFoundError {
  return new WebhookNotFoundError(`Run ${runId} has no webhook: its collection has no callback_url, or the run has not completed.`);
}
