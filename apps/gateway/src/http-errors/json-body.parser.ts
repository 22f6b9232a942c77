import type { FastifyInstance } from 'fastify';
import { InvalidJsonBodyError } from '../gateway.errors';
import type { ValidationProblem } from '@lib/contracts';
import { inputShapeProblems, jsonTextShapeProblem } from './input-shape';

/** The parsed value of `Content-Type: application/json` with nothing after it. */
export const EMPTY_JSON_BODY = Symbol('EMPTY_JSON_BODY');

/**
 * A body that parsed but is outside the input-shape limits (too deep, too many keys, NUL or lone
 * surrogates). It is refused where a body is read (RequestValidationPipe), which knows whether
 * the route answers validation problems with 422 or 400, and before any transform touches it.
 */
export class RejectedBody {
  constructor(readonly problems: ValidationProblem[]) {}
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Keeps Fastify's own JSON parser (with prototype-poisoning protection) but raises a domain error
 * with a stable code, because Nest rewraps Fastify's parser errors into codeless HttpExceptions.
 * Only JSON is accepted: other content types get 415 before any handler runs.
 *
 * The body is read as bytes and decoded strictly: read as a string, invalid UTF-8 became U+FFFD
 * and Fastify then reported a confusing "body size did not match Content-Length".
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(
        new InvalidJsonBodyError(
          `The request body is not valid UTF-8 (first bad byte at offset ${firstInvalidUtf8Offset(body as Buffer)}).`,
        ),
        undefined,
      );
    }
    const structural = jsonTextShapeProblem(text);
    if (structural) return done(null, new RejectedBody([structural]));
    // Fastify's parser answers through the callback; the promise it also returns carries nothing more.
    void parseJson(request, text, (error: Error | null, value?: unknown) => {
      if (!error) {
        const problems = inputShapeProblems(value, ['body']);
        return done(null, problems.length > 0 ? new RejectedBody(problems) : value);
      }
      // A declared but empty body is refused only where a body is read (RequestValidationPipe):
      // routes without one (POST …/run) accept what many HTTP clients send by habit.
      if ((error as { code?: string }).code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return done(null, EMPTY_JSON_BODY);
      done(
        new InvalidJsonBodyError(
          `The request body is not valid JSON${/prototype/i.test(error.message) ? ' (it sets __proto__ or constructor.prototype)' : ''}.`,
        ),
        undefined,
      );
    });
  });
}

/** Where strict decoding fails: the offset of the first byte a client can look up in what it sent. */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    const length =
      lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    try {
      utf8.decode(bytes.subarray(i, i + length));
    } catch {
      return i;
    }
    i += length;
  }
  return bytes.length;
}
