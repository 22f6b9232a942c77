import { AppError, unavailableDependencyOf } from '@lib/errors';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { JobResultUnavailableError, RequestValidationError } from '../gateway.errors';
import { httpMappingOf, INTERNAL_ERROR } from './error-status.table';

interface ErrorResponse {
  status: number;
  body: unknown;
  retryAfterSeconds?: number;
}

/**
 * Every error of the gateway leaves through here: domain errors by their code (one table),
 * validation as the contract's 422 list, framework errors (bad JSON, too large) as 4xx. Nothing a
 * client sends can produce a 500; a 500 means a bug and is logged with its stack.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const response = this.toResponse(error);
    const unavailable = error instanceof AppError ? null : unavailableDependencyOf(error);
    if (unavailable) {
      this.logger.warn(`${unavailable.message} (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    } else if (response.status >= 500) {
      this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    }
    if (response.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(response.retryAfterSeconds))));
    // RFC 6750 §3, which MCP clients follow too: a 401 names the scheme it wants.
    if (response.status === 401) reply.header('www-authenticate', 'Bearer realm="scraping-api"');
    void reply.status(response.status).type('application/json; charset=utf-8').send(response.body);
  }

  toResponse(error: unknown): ErrorResponse {
    // An outage is not a bug: a database that cannot be reached answers 503 with Retry-After.
    const unavailable = error instanceof AppError ? null : unavailableDependencyOf(error);
    if (unavailable) return this.toResponse(unavailable);
    if (error instanceof RequestValidationError) {
      return { status: error.status, body: { detail: error.problems } };
    }
    if (error instanceof JobResultUnavailableError) {
      // Spec 4.5 / contract §5: the job-result 404 keeps its object `detail`.
      return { status: 404, body: { detail: error.detail } };
    }
    if (error instanceof AppError) {
      const mapping = httpMappingOf(error.code) ?? INTERNAL_ERROR;
      const detail = mapping.status >= 500 && mapping === INTERNAL_ERROR ? 'The service failed to handle the request.' : error.message;
      const retryAfter = typeof error.details?.retry_after_seconds === 'number' ? error.details.retry_after_seconds : undefined;
      // A machine-readable reason where the error has one (e.g. target_blocked → private_ip).
      const reason = mapping.status < 500 && typeof error.details?.reason === 'string' ? { reason: error.details.reason } : {};
      // The state a refused transition found (409 invalid_state), so a client need not read it again.
      const state = mapping.status < 500 && typeof error.details?.state === 'string' ? { state: error.details.state } : {};
      return {
        status: mapping.status,
        body: { detail, error_code: mapping.errorCode, ...reason, ...state },
        retryAfterSeconds: retryAfter ?? (mapping.status === 503 ? 5 : undefined),
      };
    }
    const framework = frameworkErrorOf(error);
    if (framework) return framework;
    if (error instanceof HttpException) {
      const status = error.getStatus();
      return { status, body: { detail: messageOf(error), error_code: publicCodeOf(HttpStatus[status] ?? 'HTTP_ERROR') } };
    }
    return { status: 500, body: { detail: 'The service failed to handle the request.', error_code: 'internal_error' } };
  }
}

// Fastify errors reach here already wrapped by Nest as HttpException (status kept, code lost);
// anything else carrying a 4xx statusCode is answered with that status rather than a 500.
function frameworkErrorOf(error: unknown): ErrorResponse | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { statusCode } = error as { statusCode?: unknown };
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return {
      status: statusCode,
      body: {
        detail: error instanceof Error ? error.message : 'Bad request.',
        error_code: publicCodeOf(HttpStatus[statusCode] ?? 'BAD_REQUEST'),
      },
    };
  }
  return undefined;
}

function messageOf(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  return Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : error.message;
}

/** Nest's HttpStatus names (PAYLOAD_TOO_LARGE) are already snake case, in capitals. */
function publicCodeOf(statusName: string): string {
  return statusName.toLowerCase();
}
