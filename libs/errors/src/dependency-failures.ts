import { DependencyUnavailableError } from './platform.errors';

/**
 * Recognises an error that means a dependency (the database above all) could not be reached, as
 * opposed to a bug: a Postgres outage must answer 503 with Retry-After, never 500. The shapes are
 * those of node-postgres (errno codes, SQLSTATE, its connection messages) and of Prisma's driver
 * adapter (`meta.driverAdapterError.cause.kind`), wherever they sit in the chain of causes.
 */
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// SQLSTATE class 08 (connection exception), 57P01-57P03 (the server is shutting down, crashed or
// starting), 53300 (too many connections).
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
// Prisma's driver adapter names these kinds for a database it cannot talk to.
const UNREACHABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
]);
// node-postgres raises these without a code when a connection dies or cannot be had in time.
const CONNECTION_MESSAGES =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)$/;

/** The dependency failure `error` is (or was caused by), as a 503 domain error; null for anything else. */
export function unavailableDependencyOf(error: unknown): DependencyUnavailableError | null {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.shift();
    if (typeof current !== 'object' || current === null || seen.has(current) || seen.size > 20) continue;
    seen.add(current);
    const { code, message, cause, meta, errors } = current as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } };
      errors?: unknown;
    };
    const kind = meta?.driverAdapterError?.cause?.kind;
    const originalCode = meta?.driverAdapterError?.cause?.originalCode;
    if (
      (typeof code === 'string' && (CONNECTION_ERRNOS.has(code) || UNAVAILABLE_SQLSTATE.test(code))) ||
      (typeof kind === 'string' && UNREACHABLE_KINDS.has(kind)) ||
      (typeof originalCode === 'string' && UNAVAILABLE_SQLSTATE.test(originalCode)) ||
      (typeof message === 'string' && CONNECTION_MESSAGES.test(message))
    )
      return new DependencyUnavailableError('The database is unavailable; retry in a few seconds.', {
        retry_after_seconds: 5,
      });
    pending.push(cause, meta?.driverAdapterError, meta?.driverAdapterError?.cause);
    if (Array.isArray(errors)) pending.push(...errors);
  }
  return null;
}
