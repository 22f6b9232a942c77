import { withCorrelationId } from '@lib/logging';
import type { FastifyInstance } from 'fastify';

/**
 * Runs every request — admission, body parsing, the handler and everything it awaits — inside its
 * correlation scope (the request id: X-Request-Id when the client sent a usable one), so that every
 * log line and every message sent on its behalf carries it without handlers passing it by hand. The
 * message contexts do the same on their side (libs/messaging: InProcessServer.dispatch, and
 * CorrelationInterceptor on NATS).
 *
 * A Fastify hook that calls the rest of the chain inside the scope, registered before the others
 * that need it: a Nest interceptor did this for the handler alone, and any interceptor costs every
 * request two AsyncResource.bind calls in Nest's consumer (decision 0033).
 */
export function installRequestCorrelation(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => withCorrelationId(String(request.id), () => done()));
}
