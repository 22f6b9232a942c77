import { AppError } from '@lib/errors';

/** Not an ISO 3166-1 alpha-2 code. */
export class UnknownCountryError extends AppError {
  readonly code = 'proxy.unknown_country';
}

/** The administrator decided on a request that does not exist. */
export class CountryRequestNotFoundError extends AppError {
  readonly code = 'proxy.request_not_found';
}
