import { RunDeliveriesReference, WebhookDeliveryLog } from '@lib/contracts';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { type RunWebhookRef, WebhookOutboxStore } from '../persistence/webhook-outbox.store';
import { DeliveryInProgressError, WebhookNotFoundError } from '../webhook-sender.errors';

/**
 * A run's webhook as its owner sees it: every attempt (number, time, status code or error,
 * latency, outcome), and redelivery on demand — neither is in the spec; both are what users of
 * the peers ask for.
 */
@Injectable()
export class DeliveryLog {
  constructor(
    private readonly outbox: WebhookOutboxStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async of(ref: RunDeliveriesReference): Promise<WebhookDeliveryLog> {
    const row = await this.outbox.find(refOf(ref));
    if (!row) throw notFound(ref.run_id);
    const attempts = await this.outbox.attemptsOf(row.id);
    return {
      delivery_id: row.id,
      run_id: row.runId,
      callback_url: row.callbackUrl,
      status: row.status,
      next_attempt_at: row.nextAttemptAt ? new Date(row.nextAttemptAt).toISOString() : null,
      attempts: attempts.map((a) => ({
        attempt: a.attempt,
        manual: a.manual,
        attempted_at: new Date(a.attemptedAt).toISOString(),
        status_code: a.statusCode,
        error: a.error,
        latency_ms: a.latencyMs,
        outcome: a.outcome,
      })),
    };
  }

  /** Schedules one attempt now (outside the retry schedule, which it replaces). */
  async redeliver(ref: RunDeliveriesReference): Promise<WebhookDeliveryLog> {
    const scheduled = await this.outbox.scheduleNow(refOf(ref), this.clock.now());
    if (scheduled === 'absent') throw notFound(ref.run_id);
    if (scheduled === 'busy') throw new DeliveryInProgressError('An attempt of this webhook is under way; ask again when it has finished.');
    return this.of(ref);
  }
}

function refOf(ref: RunDeliveriesReference): RunWebhookRef {
  return { runId: ref.run_id, clientId: ref.client_id, collectionId: ref.collection_id };
}

function notFound(runId: string): WebhookNotFoundError {
  return new WebhookNotFoundError(`Run ${runId} has no webhook: its collection has no callback_url, or the run has not completed.`);
}
