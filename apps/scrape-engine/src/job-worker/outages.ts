import { DependencyUnavailableError, RemoteAppError, TransportTimeoutError } from '@lib/errors';

/** An error that says another context or the database is out for now, not that the request is wrong: worth asking again. */
export function isOutage(error: unknown): boolean {
  return (
    error instanceof DependencyUnavailableError ||
    error instanceof TransportTimeoutError ||
    (error instanceof RemoteAppError && (error.code === 'transport.unavailable' || error.code === 'transport.timeout'))
  );
}
