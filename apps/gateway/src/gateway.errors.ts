import { AppError } from '@lib/errors';

export class ClientAlreadyExistsError extends AppError {
  readonly code = 'gateway.client_exists';
}

export class UnknownClientError extends AppError {
  readonly code = 'gateway.unknown_client';
}

/** One problem of a request, in the contract's 422 item form (operator contract §5). */
export interface ValidationProblem {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** Request fields failed validation; carries every problem at once. */
export class RequestValidationError extends AppError {
  readonly code = 'request.validation_failed';
  constructor(readonly problems: ValidationProblem[]) {
    super(problems.map((p) => `${p.loc.join('.')}: ${p.msg}`).join('; '));
  }
}

/** The body is declared as JSON but does not parse (or is empty). */
export class InvalidJsonBodyError extends AppError {
  readonly code = 'request.invalid_json';
}

/** use_proxy names a country this client has no approval for (spec 4.2 rule 4). */
export class CountryProxyNotApprovedError extends AppError {
  readonly code = 'proxy.country_not_approved';
}
