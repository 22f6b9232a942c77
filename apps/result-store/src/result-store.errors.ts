import { AppError } from '@lib/errors';

/** The cursor is not one of ours, belongs to another run, or was made under another order_by (400). */
export class InvalidCursorError extends AppError {
  readonly code = 'results.invalid_cursor';
}

/** No run with this id under this collection for this client. */
export class ListedRunNotFoundError extends AppError {
  readonly code = 'results.run_not_found';
}

/** GET /v1/jobs filtered by a project that is not the client's. */
export class ListedProjectNotFoundError extends AppError {
  readonly code = 'results.project_not_found';
}

/** GET /v1/jobs filtered by a batch (or run) that is not the client's. */
export class ListedBatchNotFoundError extends AppError {
  readonly code = 'results.batch_not_found';
}
