import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock, PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { signWebhook } from '../signing-secrets/webhook-signature';
import { SigningSecrets } from '../signing-secrets/signing-secrets';
import { CallbackResult, CallbackTransport } from './callback-transport';

interface DueDelivery {
  id: string;
  run_id: string;
  client_id: string;
  callback_url: string;
  payload: Record<string, unknown> & { results_path: string };
  attempts: number;
  manual: boolean;
}

type Verdict = { outcome: 'sent' | 'failed' | 'failed_final' | 'blocked'; status: 'sent' | 'failed'; nextAttemptAt: Date | null };

// Deliveries handled per pass and replica; the rest wait for the next pass.
const BATCH = 20;
/**
 * Delivers run-completion webhooks from the outbox (spec 6, operator contract §4), durably: the
 * schedule lives in the database, so a restarted sender picks up exactly where the last one
 * stopped, and a row is leased (UPDATE … FOR UPDATE SKIP LOCKED) before its attempt, so two
 * replicas never send the same attempt. Outcomes:
 * - 2xx → `sent`;
 * - timeout, connection error, 408, 429 or 5xx → `failed`, retried after WEBHOOK_RETRY_DELAYS
 *   (the row reads `retrying` while a retry is under way), at most as many retries as delays;
 * - any other 4xx, or a 3xx (redirects are not followed) → `failed` for good;
 * - a callback_url that is no longer public → `failed` for good, nothing sent.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly schedule: PeriodicTask<number>;

  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly secrets: SigningSecrets,
    private readonly transport: CallbackTransport,
  ) {
    this.schedule = new PeriodicTask('WebhookDispatcher', config.webhookPollIntervalMs, () => this.deliverDue());
  }

  onApplicationBootstrap(): void {
    this.schedule.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.schedule.stop();
  }

  /** A pass now (after a redeliver); shares a pass already running. */
  nudge(): void {
    void this.schedule.runNow().catch(() => undefined);
  }

  private async deliverDue(): Promise<number> {
    const now = this.clock.now();
    const due = await this.db.sql.query<DueDelivery>(
      `update webhook_outbox set lease_until = $2, status = case when attempts > 0 then 'retrying' else status end
       where id in (
         select id from webhook_outbox where next_attempt_at <= $1 and (lease_until is null or lease_until < $1)
         order by next_attempt_at limit ${BATCH} for update skip locked
       ) returning id, run_id, client_id, callback_url, payload, attempts, manual`,
      // A replica that died mid-attempt frees its rows after the attempt's timeout plus the margin.
      [now, new Date(now.getTime() + this.config.webhookTimeoutMs + this.config.webhookLeaseMarginMs)],
    );
    await Promise.all(due.map((delivery) => this.attempt(delivery)));
    return due.length;
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const attempt = delivery.attempts + 1;
    const { results_path, ...fields } = delivery.payload;
    const body = JSON.stringify({ ...fields, results_url: `${this.config.publicBaseUrl}${results_path}` });
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    const secret = await this.secrets.of(delivery.client_id);
    const result = await this.transport.post(
      delivery.callback_url,
      body,
      {
        'x-service-timestamp': String(timestamp),
        'x-service-signature': signWebhook(secret, timestamp, body),
        // Stable across retries and redeliveries of this run's webhook: receivers drop duplicates by it.
        'x-service-delivery-id': delivery.id,
        'x-service-delivery-attempt': String(attempt),
        'x-service-event': 'run.completed',
      },
      this.config.webhookTimeoutMs,
    );
    const verdict = this.verdictOf(result, attempt, delivery.manual);
    const at = this.clock.now();
    await this.db.sql.transaction(async (tx) => {
      // Recorded only if the row is still ours at this attempt count (a replica that lost its lease cannot overwrite).
      const updated = await tx.query(
        `update webhook_outbox set attempts = $3, status = $4, next_attempt_at = $5, lease_until = null, manual = false, last_status_code = $6, last_error = $7
         where id = $1 and attempts = $2 returning id`,
        [
          delivery.id,
          delivery.attempts,
          attempt,
          verdict.status,
          verdict.nextAttemptAt,
          result.kind === 'answered' ? result.statusCode : null,
          result.kind === 'answered' ? null : result.error,
        ],
      );
      if (updated.length === 0) return;
      await tx.query(
        'insert into webhook_deliveries (id, outbox_id, run_id, attempt, manual, attempted_at, status_code, error, latency_ms, outcome) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [
          randomUUID(),
          delivery.id,
          delivery.run_id,
          attempt,
          delivery.manual,
          at,
          result.kind === 'answered' ? result.statusCode : null,
          result.kind === 'answered' ? (verdict.outcome === 'sent' ? null : `HTTP ${result.statusCode}`) : result.error,
          result.latencyMs,
          verdict.outcome,
        ],
      );
    });
  }

  private verdictOf(result: CallbackResult, attempt: number, manual: boolean): Verdict {
    if (result.kind === 'blocked') return { outcome: 'blocked', status: 'failed', nextAttemptAt: null };
    const code = result.kind === 'answered' ? result.statusCode : null;
    if (code !== null && code >= 200 && code < 300) return { outcome: 'sent', status: 'sent', nextAttemptAt: null };
    const retryable = code === null || code >= 500 || code === 408 || code === 429;
    // The n-th attempt failing waits the n-th delay; a redeliver is one attempt, outside the schedule.
    const delays = this.config.webhookRetryDelaysSeconds;
    if (!retryable || manual || attempt > delays.length) return { outcome: 'failed_final', status: 'failed', nextAttemptAt: null };
    return { outcome: 'failed', status: 'failed', nextAttemptAt: new Date(this.clock.now().getTime() + delays[attempt - 1] * 1000) };
  }
}
