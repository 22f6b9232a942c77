import type { WebhookOutbox } from './generated/prisma/client';
import type { SqlTransaction } from './credit-account';
import { storableJson } from './storable-text';

/**
 * Rows one context writes for another to take over, inside the transaction that produces them
 * (the outbox pattern: the job's completion and its result, or the run's completion and its
 * webhook, commit together or not at all). The owner reads, updates and prunes them through its
 * own store; the one insert lives here so that it is written once:
 * - `job_results`: owned by result-store (serves and prunes them), written by batch-orchestrator
 *   when a job completes, by the statement that finishes the job (the migration's finish_job,
 *   JobStore.finishAndSettle);
 * - `webhook_outbox`: owned by webhook-sender (delivers them), written by batch-orchestrator when
 *   a run completes, or a crawl's page ends and the crawl asked for page webhooks.
 */

/**
 * A webhook to deliver, due now: a run's completion (`subjectId` = the run's id) or one page of a
 * crawl (`subjectId` = the job's id). A subject gets one, however often the transaction that
 * produces it is retried.
 */
export async function enqueueWebhook(
  tx: SqlTransaction,
  row: Pick<WebhookOutbox, 'id' | 'runId' | 'subjectId' | 'clientId' | 'callbackUrl' | 'createdAt'> & { payload: object },
): Promise<void> {
  await tx.query(
    'insert into webhook_outbox (id, run_id, subject_id, client_id, callback_url, payload, status, next_attempt_at, created_at) values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $8) on conflict (subject_id) do nothing',
    [row.id, row.runId, row.subjectId, row.clientId, row.callbackUrl, storableJson(row.payload), 'pending', row.createdAt],
  );
}
