import type { DatabaseConnection } from '@lib/persistence';
import { IdempotencyKeyInFlightError, IdempotencyKeys, type StoredResponse } from './idempotency-keys';
import { IdempotencyKeyStore } from '../persistence/idempotency-keys.store';
import { MovableClock } from '../../../../test/support/movable-clock';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';

/** The stored side of Idempotency-Key on each database, with a clock the test moves. */
describe.each(DATABASE_BACKENDS)('IdempotencyKeys (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  const clock = new MovableClock();
  let keys: IdempotencyKeys;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'idempotency'));
    keys = new IdempotencyKeys(new IdempotencyKeyStore(db), clock);
  });
  afterAll(async () => close());

  it('answers 409 when the first request is still in flight after the wait, then replays once it finishes', async () => {
    let finish!: () => void;
    const first = keys.once(
      'c1',
      'slow-key',
      { a: 1 },
      () => new Promise<StoredResponse<{ id: string }>>((resolve) => (finish = () => resolve({ status: 201, body: { id: 'x' } }))),
    );
    await new Promise((r) => setTimeout(r, 50));
    await expect(keys.once('c1', 'slow-key', { a: 1 }, async () => ({ status: 201, body: { id: 'never' } }), 300)).rejects.toBeInstanceOf(
      IdempotencyKeyInFlightError,
    );
    finish();
    expect(await first).toEqual({ status: 201, body: { id: 'x' }, replayed: false });
    expect(await keys.once('c1', 'slow-key', { a: 1 }, async () => ({ status: 201, body: { id: 'never' } }))).toEqual({
      status: 201,
      body: { id: 'x' },
      replayed: true,
    });
  });

  it('forgets a key after 24 hours', async () => {
    await keys.once('c1', 'day-key', { a: 1 }, async () => ({ status: 201, body: { id: 'first' } }));
    clock.offsetMs = 23 * 3_600_000;
    expect((await keys.once('c1', 'day-key', { a: 1 }, async () => ({ status: 201, body: { id: 'second' } }))).body).toEqual({
      id: 'first',
    });
    clock.offsetMs = 24 * 3_600_000 + 1000;
    expect(await keys.once('c1', 'day-key', { a: 1 }, async () => ({ status: 201, body: { id: 'second' } }))).toEqual({
      status: 201,
      body: { id: 'second' },
      replayed: false,
    });
    clock.offsetMs = 0;
  });

  it('stores nothing when the first request fails, so the key can be used again', async () => {
    await expect(keys.once('c1', 'fail-key', { a: 1 }, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await keys.once('c1', 'fail-key', { a: 2 }, async () => ({ status: 201, body: { id: 'ok' } }))).toMatchObject({
      replayed: false,
    });
  });
});
