import { AppError } from '@lib/errors';

/** The run has no webhook (no callback_url, not completed yet, unknown, or another client's). */
export class WebhookNotFoundError extends AppError {
  readonly code = 'webhook.not_found';
}

/** A redeliver while an attempt of the same webhook is under way. */
export class DeliveryInProgressError extends AppError {
  readonly code = 'webhook.delivery_in_progress';
}

/** A delivery listing's cursor that this service did not write (or wrote for another crawl). */
export class InvalidDeliveryCursorError extends AppError {
  readonly code = 'webhook.invalid_cursor';
}
