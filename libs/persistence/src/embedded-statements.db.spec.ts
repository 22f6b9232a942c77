import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { EmbeddedStatements } from './embedded-statements';

/**
 * The embedded database's prepared statements stand in for `PGlite.query` everywhere: the same
 * rows for any parameters (types inferred by Postgres, serialised and parsed by PGlite's own
 * code), the same errors, the same isolation from a transaction in progress, and a bounded cache.
 */
describe('EmbeddedStatements (PGlite prepared statements)', () => {
  let db: PGlite;
  let statements: EmbeddedStatements;

  beforeAll(async () => {
    db = await PGlite.create();
    statements = new EmbeddedStatements(db, 8);
    await db.exec(
      `create table facts (id int primary key, at timestamptz, body jsonb, tags text[], big bigint, ok boolean, note text, ref uuid)`,
    );
  }, 60_000);

  afterAll(async () => {
    await db?.close();
  });

  const alone = async <T>(text: string, params: unknown[]) => (await statements.results<T>(text, params, false)).rows;
  const inTransaction = async <T>(text: string, params: unknown[]) => (await statements.results<T>(text, params, true)).rows;

  const row = fc.record({
    id: fc.integer({ min: 1, max: 1_000_000 }),
    at: fc.option(fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })),
    body: fc.option(fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown)),
    tags: fc.option(
      fc.array(
        fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000')),
        { maxLength: 4 },
      ),
    ),
    big: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)),
    ok: fc.option(fc.boolean()),
    note: fc.option(fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000'))),
    ref: fc.option(fc.uuid()),
  });

  it('writes and reads what PGlite.query writes and reads, for any values', async () => {
    await fc.assert(
      fc.asyncProperty(row, fc.boolean(), async (r, viaStatements) => {
        await db.query('delete from facts');
        const insert =
          'insert into facts (id, at, body, tags, big, ok, note, ref) values ($1, $2, $3, $4, $5, $6, $7, $8) returning id, at, body, tags, big, ok, note, ref';
        const params = [r.id, r.at, r.body === null ? null : JSON.stringify(r.body), r.tags, r.big, r.ok, r.note, r.ref];
        const inserted = viaStatements ? await alone(insert, params) : (await db.query(insert, params)).rows;
        const select = 'select id, at, body, tags, big, ok, note, ref from facts where id = $1';
        const mine = await alone(select, [r.id]);
        const theirs = (await db.query(select, [r.id])).rows;
        expect(mine).toEqual(theirs);
        expect(inserted).toEqual(theirs);
      }),
      { numRuns: 150 },
    );
  });

  it('fails as PGlite.query fails, with the statement attached, and the statement still works afterwards', async () => {
    await db.query('delete from facts');
    const insert = 'insert into facts (id) values ($1)';
    await alone(insert, [1]);
    const failure = await alone(insert, [1]).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: '23505', query: insert, params: [1] });
    await alone(insert, [2]);
    expect(await alone('select id from facts order by id', [])).toEqual([{ id: 1 }, { id: 2 }]);
    await expect(alone('select nonsense from nowhere', [])).rejects.toMatchObject({ code: '42P01' });
  });

  it("runs inside the caller's transaction, and a statement outside waits until the transaction has ended", async () => {
    await db.query('delete from facts');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let insertedInTransaction!: () => void;
    const inserted = new Promise<void>((r) => (insertedInTransaction = r));
    const transaction = db.transaction(async () => {
      await inTransaction('insert into facts (id) values ($1)', [7]);
      insertedInTransaction();
      await held;
      throw new Error('roll back');
    });
    await inserted;
    const outside = alone<{ n: number }>('select count(*)::int as n from facts', []);
    let outsideDone = false;
    void outside.then(() => (outsideDone = true));
    await new Promise((r) => setImmediate(r));
    expect(outsideDone).toBe(false);
    release();
    await expect(transaction).rejects.toThrow('roll back');
    // Not run inside the rolled-back transaction: it saw the table after it.
    expect(await outside).toEqual([{ n: 0 }]);
  });

  it('prepares again a statement whose result columns changed', async () => {
    await db.exec('create table shifting (a int)');
    await db.query('insert into shifting values (1)');
    expect(await alone('select * from shifting', [])).toEqual([{ a: 1 }]);
    await db.exec('alter table shifting add column b int default 2');
    expect(await alone('select * from shifting', [])).toEqual([{ a: 1, b: 2 }]);
  });

  it('keeps at most its capacity of statements prepared, closing the least recently used', async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `select ${i}::int as n`);
    for (const [i, text] of texts.entries()) expect(await alone(text, [])).toEqual([{ n: i }]);
    const prepared = await db.query<{ statement: string }>("select statement from pg_prepared_statements where name like 'embedded_%'");
    expect(prepared.rows.length).toBeLessThanOrEqual(8);
    expect(prepared.rows.map((r) => r.statement)).toContain(texts[19]);
    expect(prepared.rows.map((r) => r.statement)).not.toContain(texts[0]);
  });
});
