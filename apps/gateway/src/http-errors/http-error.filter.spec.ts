import { AdminOnlyError, InternalError, QuotaExceededError, RateLimitExceededError, RemoteAppError } from '@lib/errors';
import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { InvalidJsonBodyError, RequestValidationError } from '../gateway.errors';
import { HTTP_ERROR_TABLE } from './error-status.table';
import { HttpErrorFilter } from './http-error.filter';

describe(HttpErrorFilter.name, () => {
  const filter = new HttpErrorFilter();

  it('maps domain errors through the table to {detail, error_code}', () => {
    expect(filter.toResponse(new AdminOnlyError('admins only'))).toEqual({
      status: 403,
      body: { detail: 'admins only', error_code: 'admin_only' },
    });
    expect(filter.toResponse(new InvalidJsonBodyError('bad'))).toMatchObject({ status: 400, body: { error_code: 'invalid_json' } });
  });

  it('keeps the code of an error that crossed the transport', () => {
    expect(filter.toResponse(new RemoteAppError({ code: 'gateway.unknown_client', message: 'no such client' }))).toMatchObject({
      status: 404,
      body: { error_code: 'client_not_found' },
    });
  });

  it('answers a database outage 503 with Retry-After, not 500', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(filter.toResponse(refused)).toMatchObject({ status: 503, body: { error_code: 'service_unavailable' }, retryAfterSeconds: 5 });
    expect(filter.toResponse(new Error('a bug'))).toMatchObject({ status: 500, body: { error_code: 'internal_error' } });
  });

  it('gives 429s a Retry-After', () => {
    expect(filter.toResponse(new RateLimitExceededError('slow down', 17)).retryAfterSeconds).toBe(17);
    expect(filter.toResponse(new QuotaExceededError('no credits', 3600))).toMatchObject({
      status: 429,
      body: { error_code: 'quota_exceeded' },
      retryAfterSeconds: 3600,
    });
  });

  it('renders validation problems as the 422 list', () => {
    const error = new RequestValidationError([{ loc: ['body', 'plan'], msg: 'bad plan', type: 'enum' }]);
    expect(filter.toResponse(error)).toEqual({ status: 422, body: { detail: [{ loc: ['body', 'plan'], msg: 'bad plan', type: 'enum' }] } });
  });

  it('answers framework errors with their 4xx status', () => {
    expect(filter.toResponse(new NotFoundException('Cannot GET /x'))).toEqual({
      status: 404,
      body: { detail: 'Cannot GET /x', error_code: 'not_found' },
    });
    expect(filter.toResponse(new PayloadTooLargeException())).toMatchObject({ status: 413, body: { error_code: 'payload_too_large' } });
  });

  it('never leaks internals: unknown errors and unmapped codes are a generic 500', () => {
    expect(filter.toResponse(new Error('db password is hunter2'))).toEqual({
      status: 500,
      body: { detail: 'The service failed to handle the request.', error_code: 'internal_error' },
    });
    expect(filter.toResponse(new RemoteAppError({ code: 'nobody.knows', message: 'secret detail' })).body).toEqual({
      detail: 'The service failed to handle the request.',
      error_code: 'internal_error',
    });
    expect(filter.toResponse(new InternalError('stack here')).status).toBe(500);
  });

  it('uses snake_case public codes only', () => {
    for (const mapping of Object.values(HTTP_ERROR_TABLE)) expect(mapping.errorCode).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
});
