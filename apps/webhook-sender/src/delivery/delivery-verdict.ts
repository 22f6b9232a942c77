import type { CallbackResult } from './callback-transport';

/** What one attempt's result means for the webhook (operator contract §4). */
export interface DeliveryVerdict {
  /** The delivery log's word for the attempt. */
  outcome: 'sent' | 'failed' | 'failed_final' | 'blocked';
  /** The outbox row's status after it. */
  status: 'sent' | 'failed';
  /** When to try again; null when the delivery is final. */
  nextAttemptAt: Date | null;
}

/**
 * - 2xx → `sent`;
 * - timeout, connection error, 408, 429 or 5xx → `failed`, tried again after the n-th of
 *   `retryDelaysSeconds` for the n-th attempt, at most as many retries as delays;
 * - any other 4xx, or a 3xx (redirects are not followed) → failed for good;
 * - a callback_url that is no longer public → `blocked`, failed for good, nothing sent;
 * - a redelivery asked for by the client (`manual`) is one attempt, outside the schedule.
 */
export function deliveryVerdict(
  result: CallbackResult,
  attempt: { number: number; manual: boolean },
  retryDelaysSeconds: readonly number[],
  now: Date,
): DeliveryVerdict {
  if (result.kind === 'blocked') return { outcome: 'blocked', status: 'failed', nextAttemptAt: null };
  const code = result.kind === 'answered' ? result.statusCode : null;
  if (code !== null && code >= 200 && code < 300) return { outcome: 'sent', status: 'sent', nextAttemptAt: null };
  const retryable = code === null || code >= 500 || code === 408 || code === 429;
  if (!retryable || attempt.manual || attempt.number > retryDelaysSeconds.length)
    return { outcome: 'failed_final', status: 'failed', nextAttemptAt: null };
  return { outcome: 'failed', status: 'failed', nextAttemptAt: new Date(now.getTime() + retryDelaysSeconds[attempt.number - 1] * 1000) };
}
