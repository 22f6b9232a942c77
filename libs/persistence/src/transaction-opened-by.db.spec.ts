import fc from 'fast-check';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../test/support/test-databases';
import type { DatabaseConnection } from './database-connection';

/**
 * SqlExecutor.transactionOpenedBy (a job's claim, a job's end): a transaction that its opening
 * statement usually completes. Whatever mix of them runs at once with plain transactions and lone
 * statements, each is all or nothing: a counter moved by every kind equals the sum of what resolved,
 * a transaction that went on and then failed left nothing (its opening statement included), one
 * that did not go on refused further statements, and after-commit hooks ran exactly for what
 * committed. On the embedded database a transaction that goes on is rolled back and run again whole.
 */
const BUMP = 'update opened_by_counter set n = n + $1 where id = 1 returning n, $2::boolean as "goesOn"';

type Op =
  | { kind: 'opened'; by: number; goesOn: boolean; fails: boolean; triesMore: boolean }
  | { kind: 'transaction'; by: number; fails: boolean }
  | { kind: 'alone'; by: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('opened' as const),
    by: fc.integer({ min: 1, max: 9 }),
    goesOn: fc.boolean(),
    fails: fc.boolean(),
    triesMore: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('transaction' as const), by: fc.integer({ min: 1, max: 9 }), fails: fc.boolean() }),
  fc.record({ kind: fc.constant('alone' as const), by: fc.integer({ min: 1, max: 9 }) }),
);

describe.each(DATABASE_BACKENDS)('transactionOpenedBy on the %s database', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'opened_by'));
    await db.sql.exec(
      'create table opened_by_counter (id int primary key, n int not null); create table opened_by_notes (id serial primary key, by int not null)',
    );
    await db.sql.exec('insert into opened_by_counter values (1, 0)');
  }, 60_000);

  afterAll(async () => close?.());

  const counter = async () => (await db.sql.query<{ n: number }>('select n from opened_by_counter where id = 1'))[0].n;
  const notes = async () => Number((await db.sql.query<{ c: string }>('select count(*)::text c from opened_by_notes'))[0].c);

  it('commits alone what does not go on, goes on in one transaction otherwise, and loses nothing among concurrent work', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const before = await counter();
        const notesBefore = await notes();
        const hooked: number[] = [];
        const refused: string[] = [];
        const outcomes = await Promise.allSettled(
          ops.map(async (o, i) => {
            if (o.kind === 'alone') return void (await db.sql.query('update opened_by_counter set n = n + $1 where id = 1', [o.by]));
            if (o.kind === 'transaction')
              return db.sql.transaction(async (tx) => {
                await tx.query('update opened_by_counter set n = n + $1 where id = 1', [o.by]);
                tx.afterCommit(() => hooked.push(i));
                if (o.fails) throw new Error('rolled back');
              });
            return db.sql.transactionOpenedBy<{ n: number; goesOn: boolean }, void>(
              { text: BUMP, params: [o.by, o.goesOn], goesOnWhen: 'goesOn' },
              async (tx, rows) => {
                expect(rows).toHaveLength(1);
                expect(rows[0].goesOn).toBe(o.goesOn);
                tx.afterCommit(() => hooked.push(i));
                if (o.goesOn) {
                  await tx.query('insert into opened_by_notes (by) values ($1)', [o.by]);
                  if (o.fails) throw new Error('rolled back');
                } else if (o.triesMore) {
                  // Committed already: a further statement is a mistake, and says so.
                  refused.push(String(await tx.query('select 1').catch((e: Error) => e.message)));
                }
              },
            );
          }),
        );
        const committed = ops.map((o, i) => outcomes[i].status === 'fulfilled' && o);
        for (const [i, o] of ops.entries())
          expect(outcomes[i].status).toBe(
            o.kind !== 'alone' && o.fails && (o.kind === 'transaction' || o.goesOn) ? 'rejected' : 'fulfilled',
          );
        const moved = committed.reduce((sum, o) => sum + (o ? o.by : 0), 0);
        expect(await counter()).toBe(before + moved);
        expect(await notes()).toBe(notesBefore + committed.filter((o) => o && o.kind === 'opened' && o.goesOn).length);
        expect(hooked.sort((a, b) => a - b)).toEqual(ops.flatMap((o, i) => (committed[i] && o.kind !== 'alone' ? [i] : [])));
        const tried = ops.filter((o) => o.kind === 'opened' && !o.goesOn && o.triesMore).length;
        expect(refused).toHaveLength(tried);
        for (const message of refused) expect(message).toMatch(/committed with its opening statement/);
      }),
      { numRuns: 40 },
    );
  });

  it('a failing opening statement leaves nothing and rejects with the database error', async () => {
    const before = await counter();
    await expect(
      db.sql.transactionOpenedBy(
        { text: 'update opened_by_counter set n = n / 0 where id = 1 returning n', params: [], goesOnWhen: 'x' },
        async () => 1,
      ),
    ).rejects.toThrow(/division by zero/);
    expect(await counter()).toBe(before);
    // The connection is usable afterwards (no transaction left open).
    await db.sql.query('update opened_by_counter set n = n + 1 where id = 1');
    expect(await counter()).toBe(before + 1);
  });

  it('no row: the transaction committed, rest hears of no rows', async () => {
    const seen = await db.sql.transactionOpenedBy<{ n: number }, number>(
      { text: 'select n, true as "goesOn" from opened_by_counter where id = -1', params: [], goesOnWhen: 'goesOn' },
      async (_tx, rows) => rows.length,
    );
    expect(seen).toBe(0);
  });
});
