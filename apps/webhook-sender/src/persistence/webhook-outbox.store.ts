import { DATABASE, type DatabaseConnection, type WebhookDelivery, type WebhookOutbox } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';

/** A leased row, ready for its attempt. */
export type DueDelivery = Pick<WebhookOutbox, 'id' | 'runId' | 'clientId' | 'callbackUrl' | 'attempts' | 'manual'> & {
  payload: Record<string, unknown> & { results_path: string };
};

/**
 * A webhook as its owner finds it: a run's own (its completion, the row whose subject is the run),
 * known by the completion event of the run's kind and, for a collection's run, by its collection;
 * or one delivery of the run's, by its id.
 */
export type RunWebhookRef =
  | { runId: string; clientId: string; completionEvent: string; collectionId: string | null; deliveryId?: undefined }
  | { runId: string; clientId: string; deliveryId: string };

function selectorOf(ref: RunWebhookRef): { where: string; params: unknown[] } {
  if (ref.deliveryId !== undefined)
    return { where: 'run_id = $1 and client_id = $2 and id = $3::uuid', params: [ref.runId, ref.clientId, ref.deliveryId] };
  return {
    where: "subject_id = $1 and client_id = $2 and payload->>'event' = $3 and ($4::text is null or payload->>'collection_id' = $4)",
    params: [ref.runId, ref.clientId, ref.completionEvent, ref.collectionId],
  };
}

/** A row of a crawl's delivery listing. */
export type ListedDelivery = Pick<
  WebhookOutbox,
  'id' | 'status' | 'attempts' | 'nextAttemptAt' | 'lastStatusCode' | 'lastError' | 'createdAt'
> & { event: string; jobId: string | null; url: string | null };

export type OutboxView = Pick<WebhookOutbox, 'id' | 'runId' | 'callbackUrl' | 'status' | 'nextAttemptAt'>;
export type AttemptView = Pick<WebhookDelivery, 'attempt' | 'manual' | 'attemptedAt' | 'statusCode' | 'error' | 'latencyMs' | 'outcome'>;

/** One attempt's outcome as the outbox row and the delivery log record it. */
export interface RecordedAttempt {
  attempt: number;
  manual: boolean;
  at: Date;
  status: 'sent' | 'failed';
  nextAttemptAt: Date | null;
  statusCode: number | null;
  /** The row's last_error (null once answered). */
  lastError: string | null;
  /** The log's error: what went wrong in this attempt, null when it was sent. */
  error: string | null;
  latencyMs: number;
  outcome: string;
}

/**
 * The `webhook_outbox` and `webhook_deliveries` tables, owned by webhook-sender (batch-orchestrator
 * inserts each outbox row in the transaction that completes its run or its crawl page:
 * `enqueueWebhook`, and shows the run's own row's status on the run). SQL through the driver: the schedule is leased with
 * `for update skip locked` so two replicas never send the same attempt, and an attempt is recorded
 * only while the row is still at its attempt count (docs/decisions/0012).
 */
@Injectable()
export class WebhookOutboxStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** Leases up to `limit` due rows until `leaseUntil` (a row reads `retrying` once it has been tried before). */
  async leaseDue(now: Date, leaseUntil: Date, limit: number): Promise<DueDelivery[]> {
    return this.db.sql.query<DueDelivery>(
      `update webhook_outbox set lease_until = $2, status = case when attempts > 0 then 'retrying' else status end
       where id in (
         select id from webhook_outbox where next_attempt_at <= $1 and (lease_until is null or lease_until < $1)
         order by next_attempt_at limit ${limit} for update skip locked
       ) returning id, run_id "runId", client_id "clientId", callback_url "callbackUrl", payload, attempts, manual`,
      [now, leaseUntil],
    );
  }

  /** Holds these rows, still at the attempt counts they were leased with, until `leaseUntil` (their attempts run on). */
  async renewLeases(deliveries: Array<Pick<DueDelivery, 'id' | 'attempts'>>, leaseUntil: Date): Promise<void> {
    if (deliveries.length === 0) return;
    await this.db.sql.query(
      `update webhook_outbox o set lease_until = $2
       from jsonb_to_recordset($1::jsonb) as d(id uuid, attempts int)
       where o.id = d.id and o.attempts = d.attempts and o.lease_until is not null`,
      [JSON.stringify(deliveries.map(({ id, attempts }) => ({ id, attempts }))), leaseUntil],
    );
  }

  /**
   * Records an attempt on the row and in the log, in one transaction — only if the row is still at
   * the attempt count it was leased with (a replica that lost its lease cannot overwrite).
   */
  async recordAttempt(delivery: DueDelivery, attempt: RecordedAttempt): Promise<boolean> {
    return this.db.sql.transaction(async (tx) => {
      const updated = await tx.query(
        `update webhook_outbox set attempts = $3, status = $4, next_attempt_at = $5, lease_until = null, manual = false, last_status_code = $6, last_error = $7
         where id = $1 and attempts = $2 returning id`,
        [delivery.id, delivery.attempts, attempt.attempt, attempt.status, attempt.nextAttemptAt, attempt.statusCode, attempt.lastError],
      );
      if (updated.length === 0) return false;
      await tx.query(
        'insert into webhook_deliveries (id, outbox_id, run_id, attempt, manual, attempted_at, status_code, error, latency_ms, outcome) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [
          randomUUID(),
          delivery.id,
          delivery.runId,
          attempt.attempt,
          attempt.manual,
          attempt.at,
          attempt.statusCode,
          attempt.error,
          attempt.latencyMs,
          attempt.outcome,
        ],
      );
      return true;
    });
  }

  async find(ref: RunWebhookRef): Promise<OutboxView | null> {
    const { where, params } = selectorOf(ref);
    const [row] = await this.db.sql.query<OutboxView>(
      `select id, run_id "runId", callback_url "callbackUrl", status, next_attempt_at "nextAttemptAt" from webhook_outbox where ${where}`,
      params,
    );
    return row ?? null;
  }

  /** A run's deliveries (a crawl's pages and its completion), oldest first, after `after` (keyset). */
  async listOfRun(
    runId: string,
    clientId: string,
    after: { createdAt: Date; id: string } | null,
    limit: number,
  ): Promise<ListedDelivery[]> {
    return this.db.sql.query<ListedDelivery>(
      `select id, payload->>'event' as event, case when subject_id = run_id then null else subject_id end "jobId",
         case when subject_id = run_id then null else payload->>'url' end as url,
         status, attempts, next_attempt_at "nextAttemptAt", last_status_code "lastStatusCode", last_error "lastError", created_at "createdAt"
       from webhook_outbox where run_id = $1 and client_id = $2 and ($3::timestamptz is null or (created_at, id) > ($3, $4::uuid))
       order by created_at, id limit ${limit}`,
      [runId, clientId, after?.createdAt ?? null, after?.id ?? null],
    );
  }

  /** Every attempt of the row, in order. */
  async attemptsOf(outboxId: string): Promise<AttemptView[]> {
    return this.db.sql.query<AttemptView>(
      `select attempt, manual, attempted_at "attemptedAt", status_code "statusCode", error, latency_ms "latencyMs", outcome
       from webhook_deliveries where outbox_id = $1 order by attempt`,
      [outboxId],
    );
  }

  /**
   * Makes one attempt due now, outside the retry schedule (which it replaces). 'absent': no such
   * webhook; 'busy': an attempt holds the row's lease.
   */
  async scheduleNow(ref: RunWebhookRef, now: Date): Promise<'scheduled' | 'absent' | 'busy'> {
    const { where, params } = selectorOf(ref);
    const [row] = await this.db.sql.query<{ id: string; free: boolean }>(
      `select id, (lease_until is null or lease_until < $${params.length + 1}) as free from webhook_outbox where ${where}`,
      [...params, now],
    );
    if (!row) return 'absent';
    const scheduled = await this.db.sql.query(
      'update webhook_outbox set next_attempt_at = $2, manual = true where id = $1 and (lease_until is null or lease_until < $2) returning id',
      [row.id, now],
    );
    return row.free && scheduled.length === 1 ? 'scheduled' : 'busy';
  }
}
