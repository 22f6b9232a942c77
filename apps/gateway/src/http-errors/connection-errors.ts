import type { FastifyReply, FastifyRequest } from 'fastify';
import http from 'node:http';
import type { Socket } from 'node:net';

/**
 * Errors raised before a request reaches Nest — by Node's HTTP parser (headers too large, a
 * malformed request line) or by Fastify's router (a path that does not decode, a path parameter
 * over the router's length limit) — answered with the contract's error body like every other
 * error, instead of the frameworks' own `{error, message, statusCode}`.
 */
const PARSER_ERRORS: Record<string, { status: number; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'request_header_fields_too_large',
    detail: 'The request line and headers are larger than the server accepts (16 KB).',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request_timeout', detail: 'The request was not received in time.' },
};

export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = PARSER_ERRORS[error.code ?? ''] ?? { status: 400, code: 'bad_request', detail: 'The request is not valid HTTP.' };
  const body = JSON.stringify({ detail: known.detail, error_code: known.code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${known.status} ${http.STATUS_CODES[known.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

const ROUTER_ERRORS: Record<string, { status: number; code: string; detail: string }> = {
  FST_ERR_BAD_URL: { status: 400, code: 'bad_url', detail: 'The request path is not valid (a percent-escape does not decode).' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: 'uri_too_long', detail: 'A path parameter is longer than the server accepts.' },
};

export function answerRouterError(error: Error & { code?: string }, _request: FastifyRequest, reply: FastifyReply): void {
  const known = ROUTER_ERRORS[error.code ?? ''] ?? { status: 400, code: 'bad_request', detail: 'The request could not be routed.' };
  void reply.status(known.status).type('application/json; charset=utf-8').send({ detail: known.detail, error_code: known.code });
}
