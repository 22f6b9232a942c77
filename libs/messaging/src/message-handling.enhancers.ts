import { InternalError, InvalidMessageError, AppError } from '@lib/errors';
import { CORRELATION_HEADER, withCorrelationId } from '@lib/logging';
import { ArgumentsHost, CallHandler, Catch, ExceptionFilter, ExecutionContext, Injectable, Logger, NestInterceptor, ValidationError, ValidationPipe } from '@nestjs/common';
import { Observable, throwError } from 'rxjs';

/**
 * Validates every inbound message against its payload class at the edge of the receiving context:
 * unknown fields are rejected, not silently dropped, so contract drift shows up at once.
 */
export function createMessageValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors: ValidationError[]) =>
      new InvalidMessageError('message payload failed validation', { problems: flattenValidationErrors(errors) }),
  });
}

function flattenValidationErrors(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => [
    ...Object.values(e.constraints ?? {}).map((msg) => `${prefix}${msg}`),
    ...flattenValidationErrors(e.children ?? [], `${prefix}${e.property}.`),
  ]);
}

/** Turns thrown errors into the serialized AppError form the caller's MessageBus understands. */
@Catch()
export class RpcErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('RpcErrorFilter');

  catch(error: unknown, _host: ArgumentsHost): Observable<never> {
    if (error instanceof AppError) return throwError(() => error.toJSON());
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return throwError(() => new InternalError('the service failed to handle the message').toJSON());
  }
}

/** Runs each message handler inside the correlation scope carried in the message headers. */
@Injectable()
export class CorrelationInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rpc = context.switchToRpc().getContext<{ getHeaders?: () => { get(name: string): string | undefined } | undefined }>();
    const headers = typeof rpc?.getHeaders === 'function' ? rpc.getHeaders() : undefined;
    const correlationId = headers?.get(CORRELATION_HEADER) || undefined;
    return new Observable((subscriber) => withCorrelationId(correlationId, () => next.handle().subscribe(subscriber)));
  }
}
