import type { FastifyInstance } from 'fastify';
import { InvalidJsonBodyError } from '../gateway.errors';

/**
 * Keeps Fastify's own JSON parser (with prototype-poisoning protection) but raises a domain error
 * with a stable code, because Nest rewraps Fastify's parser errors into codeless HttpExceptions.
 * Only JSON is accepted: other content types get 415 before any handler runs.
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (!error) return done(null, value);
      // A declared but empty body is no body: routes without one (POST …/run) accept it, routes
      // that need one report their missing fields (422) rather than a parse error.
      if ((error as { code?: string }).code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return done(null, undefined);
      done(new InvalidJsonBodyError('The request body is not valid JSON.'), undefined);
    });
  });
}
