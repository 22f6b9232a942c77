import { InternalError, InvalidMessageError, AppError, unavailableDependencyOf } from '@lib/errors';
import { CORRELATION_HEADER, withCorrelationId } from '@lib/logging';
import {
  ArgumentsHost,
  CallHandler,
  Catch,
  ExceptionFilter,
  ExecutionContext,
  Injectable,
  Logger,
  NestInterceptor,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { from, Observable, switchMap, throwError } from 'rxjs';
import { isParkedEnvelope, MessageBus, PARKED_PAYLOAD_KEY, ParkedEnvelope } from './message-bus';

/**
 * Validates every inbound message against its payload class at the edge of the receiving context:
 * unknown fields are rejected, not silently dropped, so contract drift shows up at once.
 */
export function createMessageValidationPipe(): ValidationPipe {
  return new MessageValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors: ValidationError[]) =>
      new InvalidMessageError('message payload failed validation', { problems: flattenValidationErrors(errors) }),
  });
}

/**
 * Nest's ValidationPipe without its search for binary values (a Buffer or typed array where a
 * nested payload class is expected, as a socket.io attachment can be). A message payload is
 * JSON-decoded on both transports (the in-process bus round-trips it through JSON, NATS carries
 * JSON), so none can hold one; the search reads class-validator's metadata of the payload class
 * on every message — a scan of every registered class — and was 0.9 % of the event loop at 16 sync
 * scrapes in flight.
 */
class MessageValidationPipe extends ValidationPipe {
  protected override findNestedBinaryValues(): ValidationError[] {
    return [];
  }
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
    // An outage is not a bug: the caller answers 503 with Retry-After for it, not 500.
    const unavailable = unavailableDependencyOf(error);
    if (unavailable) {
      this.logger.warn(`${unavailable.message} (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
      return throwError(() => unavailable.toJSON());
    }
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return throwError(() => new InternalError('the service failed to handle the message').toJSON());
  }
}

/**
 * Runs each message handler inside the correlation scope carried in the message headers (NATS;
 * the in-process server enters the scope itself, see InProcessServer.dispatch).
 */
@Injectable()
export class CorrelationInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rpc = context.switchToRpc().getContext<{ getHeaders?: () => { get(name: string): string | undefined } | undefined }>();
    const headers = typeof rpc?.getHeaders === 'function' ? rpc.getHeaders() : undefined;
    const correlationId = headers?.get(CORRELATION_HEADER) || undefined;
    return new Observable((subscriber) => withCorrelationId(correlationId, () => next.handle().subscribe(subscriber)));
  }
}

/**
 * Lets any message exceed NATS's 1 MB limit: a parked request (MessageBus.request, payloads over
 * the inline limit) is replaced with its payload before pipes validate it — the handler's
 * argument array is the one the pipes read — and a reply over the limit is parked on its way back.
 * Registered on NATS only (the in-process bus has no limit): bootstrapMessageContext.
 */
@Injectable()
export class LargePayloadInterceptor implements NestInterceptor {
  constructor(private readonly bus: MessageBus) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const args = context.getArgs();
    const handled = isParkedEnvelope(args[0])
      ? from(this.bus.unpack(args[0][PARKED_PAYLOAD_KEY])).pipe(
          switchMap((payload) => {
            args[0] = payload;
            return next.handle();
          }),
        )
      : next.handle();
    return handled.pipe(
      switchMap(async (reply: unknown) => {
        if (reply === undefined || reply === null || typeof reply !== 'object') return reply;
        const packed = await this.bus.pack(reply);
        return 'inline' in packed ? reply : ({ [PARKED_PAYLOAD_KEY]: packed } satisfies ParkedEnvelope);
      }),
    );
  }
}
