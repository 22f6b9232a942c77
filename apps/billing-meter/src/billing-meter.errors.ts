import { AppError } from '@lib/errors';

export class ReservationNotFoundError extends AppError {
  readonly code = 'billing.reservation_not_found';
}
