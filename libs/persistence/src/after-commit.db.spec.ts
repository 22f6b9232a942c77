import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database';
import { postgresAvailable } from '../../../test/support/infrastructure';
import { type DatabaseConnection, openDatabase } from './database-connection';

/**
 * After-commit hooks (what ops events are published from): a hook runs once its transaction has
 * committed — after the rows are visible to other connections — and never when it rolls back,
 * whatever the mix of statements, hooks and failures; a throwing hook does not undo the commit.
 */
type Prepared = { settings: { databaseUrl: string | null; dataDir: string }; drop: () => Promise<void> };
const databases: Array<[string, () => Promise<Prepared>]> = [
  [
    'PGlite',
    async () => ({
      settings: { databaseUrl: null, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'after-commit-')) },
      drop: async () => undefined,
    }),
  ],
];
if (postgresAvailable()) {
  databases.push([
    'Postgres',
    async () => {
      const database: TestDatabase = await createTestDatabase('after-commit');
      return { settings: { databaseUrl: database.url, dataDir: '' }, drop: () => database.drop() };
    },
  ]);
}

describe.each(databases)('after-commit hooks on %s', (_name, prepare) => {
  let db: DatabaseConnection;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const prepared = await prepare();
    drop = prepared.drop;
    db = await openDatabase(prepared.settings);
    await db.sql.exec('create table if not exists after_commit_facts (id int primary key)');
  }, 60_000);

  afterAll(async () => {
    await db?.release();
    await drop?.();
  });

  it('runs the hooks of a committed transaction, in order, once the rows are visible; none of a rolled-back one', async () => {
    let id = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 4 }), fc.boolean(), fc.boolean(), async (hooks, fails, hookThrows) => {
        id += 1;
        const row = id;
        const order: number[] = [];
        const visible: Array<Promise<boolean>> = [];
        const transaction = db.sql.transaction(async (tx) => {
          await tx.query('insert into after_commit_facts (id) values ($1)', [row]);
          for (let hook = 0; hook < hooks; hook += 1)
            tx.afterCommit(() => {
              order.push(hook);
              // Seen from outside the transaction: another pooled connection, or PGlite after commit.
              visible.push(db.sql.query('select 1 from after_commit_facts where id = $1', [row]).then((r) => r.length === 1));
              if (hookThrows) throw new Error('a hook that throws');
            });
          if (fails) throw new Error('rolled back');
          return row;
        });
        if (fails) {
          await expect(transaction).rejects.toThrow('rolled back');
          expect(order).toEqual([]);
          expect(visible).toEqual([]);
          return;
        }
        await expect(transaction).resolves.toBe(row);
        expect(order).toEqual([...Array(hooks).keys()]);
        expect(await Promise.all(visible)).toEqual(Array(hooks).fill(true));
      }),
      { numRuns: 40 },
    );
  });
});
