import { AppError } from '@lib/errors';

/** The cursor is not one of ours, belongs to another run, or was made under another order_by (400). */
export class InvalidCursorError extends AppError {
  readonly code = 'batch.invalid_cursor';
}

/** No run with this id under this collection for this client. */
export class ListedRunNotFoundError extends AppError {
  readonly code = 'batch.run_not_found';
}
