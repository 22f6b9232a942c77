import { withCorrelationId } from '@lib/logging';
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';

/**
 * Runs every HTTP handler inside its request's correlation scope (the request id, X-Request-Id when
 * the client sent a usable one): every log line and every message the handler sends carries it,
 * without handlers passing it by hand. The message contexts do the same on their side
 * (libs/messaging, message-handling.enhancers.ts).
 */
@Injectable()
export class RequestCorrelationInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    return new Observable((subscriber) => withCorrelationId(String(request.id), () => next.handle().subscribe(subscriber)));
  }
}
