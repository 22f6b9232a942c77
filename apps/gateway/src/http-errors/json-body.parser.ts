import type { FastifyInstance } from 'fastify';
import { InvalidJsonBodyError } from '../gateway.errors';

/**
 * Keeps Fastify's own JSON parser (with prototype-poisoning protection) but raises a domain error
 * with a stable code, because Nest rewraps Fastify's parser errors into codeless HttpExceptions.
 * Only JSON is accepted: other content types get 415 before any handler runs.
 */
/** The parsed value of `Content-Type: application/json` with nothing after it. */
export const EMPTY_JSON_BODY = Symbol('EMPTY_JSON_BODY');

export function installJsonBodyParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (!error) return done(null, value);
      // A declared but empty body is refused only where a body is read (RequestValidationPipe):
      // routes without one (POST …/run) accept what many HTTP clients send by habit.
      if ((error as { code?: string }).code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return done(null, EMPTY_JSON_BODY);
      done(new InvalidJsonBodyError('The request body is not valid JSON.'), undefined);
    });
  });
}
