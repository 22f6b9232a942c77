import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { OPS_SUBJECTS } from '@lib/contracts';
import { OpsEventPublisher } from '@lib/messaging';
import { platformMetrics } from '@lib/metrics';
import { CLOCK, Clock, PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { signWebhook } from '../signing-secrets/webhook-signature';
import { SigningSecrets } from '../signing-secrets/signing-secrets';
import { type DueDelivery, WebhookOutboxStore } from '../persistence/webhook-outbox.store';
import { CallbackTransport } from './callback-transport';
import { deliveryVerdict } from './delivery-verdict';

// Deliveries attempted at once per replica, and rounds per pass while rounds come back full (a
// crawl's page webhooks arrive faster than one round a poll interval would send them); the rest
// wait for the next pass.
const BATCH = 20;
const ROUNDS_PER_PASS = 10;
/**
 * Delivers run-completion and crawl-page webhooks from the outbox (spec 6, operator contract §4), durably: the
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
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly schedule: PeriodicTask<number>;
  private stopping = false;

  constructor(
    private readonly outbox: WebhookOutboxStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly secrets: SigningSecrets,
    private readonly transport: CallbackTransport,
    @Inject(OpsEventPublisher) private readonly ops: OpsEventPublisher,
  ) {
    this.schedule = new PeriodicTask('WebhookDispatcher', config.webhookPollIntervalMs, () => this.deliverDue());
  }

  onApplicationBootstrap(): void {
    this.schedule.start();
  }

  onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    return this.schedule.stop();
  }

  /** A pass now (after a redeliver); shares a pass already running. */
  nudge(): void {
    void this.schedule.runNow().catch(() => undefined);
  }

  private async deliverDue(): Promise<number> {
    let delivered = 0;
    for (let round = 0; round < ROUNDS_PER_PASS && !this.stopping; round++) {
      const now = this.clock.now();
      // Leased for WEBHOOK_LEASE_MARGIN_MS and renewed every third of it while the attempts run: a
      // replica that died mid-attempt frees its rows within the margin, whatever the POST's timeout.
      const marginMs = this.config.webhookLeaseMarginMs;
      const due = await this.outbox.leaseDue(now, new Date(now.getTime() + marginMs), BATCH);
      const running = new Set(due);
      const renewal = setInterval(
        () =>
          void this.outbox
            .renewLeases([...running], new Date(this.clock.now().getTime() + marginMs))
            .catch((error: unknown) => this.logger.warn(`webhook leases not renewed (${String(error)})`)),
        Math.max(300, Math.floor(marginMs / 3)),
      );
      try {
        await Promise.all(due.map((delivery) => this.attempt(delivery).finally(() => running.delete(delivery))));
      } finally {
        clearInterval(renewal);
      }
      delivered += due.length;
      if (due.length < BATCH) break;
    }
    return delivered;
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const attempt = delivery.attempts + 1;
    const { results_path, ...fields } = delivery.payload;
    const body = JSON.stringify({ ...fields, results_url: `${this.config.publicBaseUrl}${results_path}` });
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    const secret = await this.secrets.of(delivery.clientId);
    const result = await this.transport.post(
      delivery.callbackUrl,
      body,
      {
        'x-service-timestamp': String(timestamp),
        'x-service-signature': signWebhook(secret, timestamp, body),
        // Stable across retries and redeliveries of this webhook: receivers drop duplicates by it.
        'x-service-delivery-id': delivery.id,
        'x-service-delivery-attempt': String(attempt),
        // The body's own event: run.completed (a collection run), batch.completed, crawl.completed or crawl.page.
        'x-service-event': typeof fields.event === 'string' ? fields.event : 'run.completed',
      },
      this.config.webhookTimeoutMs,
    );
    const at = this.clock.now();
    const verdict = deliveryVerdict(result, { number: attempt, manual: delivery.manual }, this.config.webhookRetryDelaysSeconds, at);
    const recorded = await this.outbox.recordAttempt(delivery, {
      attempt,
      manual: delivery.manual,
      at,
      status: verdict.status,
      nextAttemptAt: verdict.nextAttemptAt,
      statusCode: result.kind === 'answered' ? result.statusCode : null,
      lastError: result.kind === 'answered' ? null : result.error,
      error: result.kind === 'answered' ? (verdict.outcome === 'sent' ? null : `HTTP ${result.statusCode}`) : result.error,
      latencyMs: result.latencyMs,
      outcome: verdict.outcome,
    });
    // Told once the attempt is committed, and only by the replica whose record won.
    if (!recorded) return;
    platformMetrics.webhookAttempts.inc({ outcome: verdict.outcome });
    const subject =
      verdict.outcome === 'sent'
        ? OPS_SUBJECTS.webhookDelivered
        : verdict.outcome === 'failed'
          ? OPS_SUBJECTS.webhookFailed
          : OPS_SUBJECTS.webhookExhausted;
    this.ops.publish(subject, {
      delivery_id: delivery.id,
      client_id: delivery.clientId,
      webhook_event: typeof fields.event === 'string' ? fields.event : 'run.completed',
      run_id: delivery.runId,
      attempt,
      status_code: result.kind === 'answered' ? result.statusCode : null,
      error: verdict.outcome === 'sent' ? null : result.kind === 'answered' ? `HTTP ${result.statusCode}` : result.error,
      next_attempt_at: verdict.nextAttemptAt?.toISOString() ?? null,
    });
  }
}
