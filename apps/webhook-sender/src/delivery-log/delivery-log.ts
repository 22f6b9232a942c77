import { RUN_COMPLETION_EVENTS, RunWebhookReference, WebhookDeliveryLog } from '@lib/contracts';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { type RunWebhookRef, WebhookOutboxStore } from '../persistence/webhook-outbox.store';
import { DeliveryInProgressError, WebhookNotFoundError } from '../webhook-sender.errors';

/**
 * A webhook as its owner sees it: every attempt (number, time, status code or error,
 * latency, outcome), and redelivery on demand — neither is in the spec; both are what users of
 * the peers ask for.
 */
@Injectable()
export class DeliveryLog {
  constructor(
    private readonly outbox: WebhookOutboxStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async of(ref: RunWebhookReference): Promise<WebhookDeliveryLog> {
    const scoped = refOf(ref);
    const row = await this.outbox.find(scoped);
    if (!row) throw notFound(scoped);
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
  async redeliver(ref: RunWebhookReference): Promise<WebhookDeliveryLog> {
    const scheduled = await this.outbox.scheduleNow(refOf(ref), this.clock.now());
    if (scheduled === 'absent') throw notFound(refOf(ref));
    if (scheduled === 'busy') throw new DeliveryInProgressError('An attempt of this webhook is under way; ask again when it has finished.');
    return this.of(ref);
  }
}

function refOf(ref: RunWebhookReference): RunWebhookRef {
  if (ref.delivery_id !== undefined) return { runId: ref.run_id, clientId: ref.client_id, deliveryId: ref.delivery_id };
  return {
    runId: ref.run_id,
    clientId: ref.client_id,
    completionEvent: RUN_COMPLETION_EVENTS[ref.kind],
    collectionId: ref.collection_id ?? null,
  };
}

function notFound(ref: RunWebhookRef): WebhookNotFoundError {
  if (ref.deliveryId !== undefined) return new WebhookNotFoundError(`The run ${ref.runId} has no delivery ${ref.deliveryId}.`);
  return new WebhookNotFoundError(
    `${ref.runId} has no webhook: its collection, batch or project has no callback_url, or it has not completed.`,
  );
}
