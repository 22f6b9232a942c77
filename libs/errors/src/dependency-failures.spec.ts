import fc from 'fast-check';
import { unavailableDependencyOf } from './dependency-failures';

/** Errors as node-postgres and Prisma's pg adapter raise them when the database cannot be reached. */
const outage = fc.oneof(
  fc
    .constantFrom('ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN')
    .map((code) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111, syscall: 'connect' })),
  fc
    .constantFrom('08006', '08001', '08003', '57P01', '57P02', '57P03', '53300')
    .map((code) => Object.assign(new Error('terminating connection due to administrator command'), { code, severity: 'FATAL' })),
  fc
    .constantFrom(
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
    )
    .map((message) => new Error(message)),
  fc.constantFrom('DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections').map((kind) =>
    Object.assign(new Error('Invalid `prisma.$queryRawUnsafe()` invocation'), {
      code: 'P2010',
      meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind, host: '127.0.0.1', port: 5432 } } },
    }),
  ),
);

/** Failures that are not outages: a bug, a constraint, a query error. */
const notOutage = fc.oneof(
  fc.string().map((message) => new Error(message.replace(/Connection terminated|timeout exceeded/g, ''))),
  fc.constantFrom('23505', '42P01', '22P02', '40001', '42703').map((code) => Object.assign(new Error('query failed'), { code })),
  fc.constantFrom('UniqueConstraintViolation', 'TableDoesNotExist', 'postgres').map((kind) =>
    Object.assign(new Error('Invalid invocation'), {
      code: 'P2002',
      meta: { driverAdapterError: { cause: { kind, originalCode: '23505' } } },
    }),
  ),
  fc.anything(),
);

/** `error` wrapped in 0–3 layers of causes, the way libraries re-throw. */
const wrapped = (inner: fc.Arbitrary<unknown>) =>
  fc
    .tuple(inner, fc.array(fc.constantFrom('cause', 'aggregate'), { maxLength: 3 }))
    .map(([error, layers]) =>
      layers.reduce<unknown>(
        (acc, layer) =>
          layer === 'cause' ? new Error('wrapper', { cause: acc }) : new AggregateError([new Error('other'), acc], 'several'),
        error,
      ),
    );

describe('unavailableDependencyOf', () => {
  it('recognises a database outage in any shape and depth as a 503 with Retry-After', () => {
    fc.assert(
      fc.property(wrapped(outage), (error) => {
        const unavailable = unavailableDependencyOf(error);
        expect(unavailable?.code).toBe('transport.unavailable');
        expect(unavailable?.details).toEqual({ retry_after_seconds: 5 });
      }),
    );
  });

  it('leaves every other failure alone (it stays a bug, or a domain error)', () => {
    fc.assert(fc.property(wrapped(notOutage), (error) => expect(unavailableDependencyOf(error)).toBeNull()));
  });

  it('stops on a cycle of causes', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(unavailableDependencyOf(a)).toBeNull();
  });
});
