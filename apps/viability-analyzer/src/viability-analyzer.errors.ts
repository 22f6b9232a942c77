import { AppError } from '@lib/errors';

/** No viability run with this id for this client (another client's counts as unknown): 404. */
export class ViabilityRunNotFoundError extends AppError {
  readonly code = 'viability.run_not_found';
}

/** The listing cursor names no run of this client: 400. */
export class InvalidViabilityCursorError extends AppError {
  readonly code = 'viability.invalid_cursor';
}
