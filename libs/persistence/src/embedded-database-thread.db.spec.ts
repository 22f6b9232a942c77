import { messages, PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedDatabaseThread } from './embedded-database-thread';

/**
 * The embedded database on its thread stands in for PGlite on the event loop: the same rows (of the
 * caller's realm: a Date is a Date here), the same errors, the same transaction rules, and the order
 * of requests the locks promise — while several requests may be on their way to the thread at once.
 */
describe('EmbeddedDatabaseThread (PGlite on a thread of its own)', () => {
  let dir: string;
  let db: EmbeddedDatabaseThread;
  let reference: PGlite;
  const TABLE =
    'create table facts (id int primary key, at timestamptz, body jsonb, tags text[], big bigint, ok boolean, note text, ref uuid, raw bytea)';

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-thread-'));
    db = await EmbeddedDatabaseThread.open({ dataDir: dir, startParams: PGlite.defaultStartParams, memoryReclaimIdleMs: 0 });
    reference = await PGlite.create();
    await db.exec(TABLE);
    await reference.exec(TABLE);
  }, 60_000);

  afterAll(async () => {
    await db?.close();
    await reference?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const text = fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000'));
  const row = fc.record({
    id: fc.integer({ min: 1, max: 1_000_000 }),
    at: fc.option(fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })),
    body: fc.option(fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown)),
    tags: fc.option(fc.array(text, { maxLength: 4 })),
    big: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)),
    ok: fc.option(fc.boolean()),
    note: fc.option(text),
    ref: fc.option(fc.uuid()),
    raw: fc.option(fc.uint8Array({ maxLength: 16 })),
  });
  const INSERT =
    'insert into facts (id, at, body, tags, big, ok, note, ref, raw) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id, at, body, tags, big, ok, note, ref, raw';
  const SELECT = 'select id, at, body, tags, big, ok, note, ref, raw from facts where id = $1';
  const paramsOf = (r: typeof row extends fc.Arbitrary<infer R> ? R : never) => [
    r.id,
    r.at,
    r.body === null ? null : JSON.stringify(r.body),
    r.tags,
    r.big,
    r.ok,
    r.note,
    r.ref,
    r.raw,
  ];

  it('writes and reads what PGlite on the event loop writes and reads, for any values, as statements and as queries', async () => {
    await fc.assert(
      fc.asyncProperty(row, fc.boolean(), async (r, inTransaction) => {
        await db.statement('delete from facts', []);
        await reference.query('delete from facts');
        const params = paramsOf(r);
        const inserted = inTransaction
          ? await db.statementTransaction((tx) => tx.statement(INSERT, params))
          : await db.statement(INSERT, params);
        const theirs = (await reference.query(INSERT, params)).rows;
        expect(inserted).toEqual(theirs);
        expect(await db.statement(SELECT, [r.id])).toEqual(theirs);
        // PGlite's own query, as Prisma's adapter calls it: rows as arrays, parsers of its own.
        const asPrisma = { rowMode: 'array' as const, parsers: { 1184: (value: string) => `at:${value}` } };
        expect((await db.query(SELECT, [r.id], asPrisma)).rows).toEqual((await reference.query(SELECT, [r.id], asPrisma)).rows);
        const [mine] = await db.statement<{ at: unknown; raw: unknown; tags: unknown }>(SELECT, [r.id]);
        // Of this realm, as PGlite's would be: made on this thread from the text that crossed.
        if (r.at) expect(mine.at).toBeInstanceOf(Date);
        if (r.raw) expect(mine.raw).toBeInstanceOf(Uint8Array);
        if (r.tags) expect(mine.tags).toBeInstanceOf(Array);
      }),
      { numRuns: 100 },
    );
  });

  it('fails as PGlite fails: a DatabaseError with its code and statement, and the database works afterwards', async () => {
    await db.statement('delete from facts', []);
    const insert = 'insert into facts (id) values ($1)';
    await db.statement(insert, [1]);
    const failure = await db.statement(insert, [1]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(messages.DatabaseError);
    expect(failure).toMatchObject({ code: '23505', query: insert, params: [1] });
    // Prisma's adapter tells driver errors by their class.
    await expect(db.query('select nonsense from nowhere')).rejects.toBeInstanceOf(messages.DatabaseError);
    await db.statement(insert, [2]);
    expect(await db.statement('select id from facts order by id', [])).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('rolls a transaction back when its callback throws, and refuses its statements once it has ended', async () => {
    await db.statement('delete from facts', []);
    let ended: { statement: (t: string, p: unknown[]) => Promise<unknown[]> } | null = null;
    await expect(
      db.statementTransaction(async (tx) => {
        ended = tx;
        await tx.statement('insert into facts (id) values ($1)', [5]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await db.statement('select count(*)::int as n from facts', [])).toEqual([{ n: 0 }]);
    await expect(ended!.statement('select 1', [])).rejects.toThrow('Transaction is closed');
  });

  it('says so when a transaction whose statement failed is committed: it was rolled back', async () => {
    await db.statement('delete from facts', []);
    const outcome = db.statementTransaction(async (tx) => {
      await tx.statement('insert into facts (id) values ($1)', [9]);
      await tx.statement('insert into facts (id) values ($1)', [9]).catch(() => undefined);
    });
    await expect(outcome).rejects.toMatchObject({ code: '25P02' });
    expect(await db.statement('select count(*)::int as n from facts', [])).toEqual([{ n: 0 }]);
  });

  it('runs a statement sent while a transaction is open after that transaction, never inside it', async () => {
    await db.statement('delete from facts', []);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let insertedInTransaction!: () => void;
    const inserted = new Promise<void>((r) => (insertedInTransaction = r));
    const transaction = db.statementTransaction(async (tx) => {
      await tx.statement('insert into facts (id) values ($1)', [7]);
      insertedInTransaction();
      await held;
      throw new Error('roll back');
    });
    await inserted;
    const outside = db.statement<{ n: number }>('select count(*)::int as n from facts', []);
    let outsideDone = false;
    void outside.then(() => (outsideDone = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(outsideDone).toBe(false);
    release();
    await expect(transaction).rejects.toThrow('roll back');
    expect(await outside).toEqual([{ n: 0 }]);
  });

  it('keeps every transaction whole while many requests are on their way at once', async () => {
    await db.statement('delete from facts', []);
    // Each transaction writes two rows, reads its own count, and every other one rolls back; the
    // statements alone, sent meanwhile, each write a row. One run inside a transaction that rolled
    // back would be lost with it.
    const transactions = Array.from({ length: 20 }, (_, i) =>
      db
        .statementTransaction(async (tx) => {
          await tx.statement('insert into facts (id, note) values ($1, $2)', [1000 + i, `t${i}`]);
          await tx.statement('insert into facts (id, note) values ($1, $2)', [2000 + i, `t${i}`]);
          const [counted] = await tx.statement<{ n: number }>('select count(*)::int as n from facts where note = $1', [`t${i}`]);
          if (i % 2 === 1) throw new Error('roll back');
          return counted.n;
        })
        .catch((error: Error) => error.message),
    );
    const alone = Array.from({ length: 20 }, (_, i) =>
      db.statement<{ id: number }>("insert into facts (id, note) values ($1, 'alone') returning id", [3000 + i]),
    );
    expect(await Promise.all(transactions)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 === 1 ? 'roll back' : 2)));
    expect(await Promise.all(alone)).toEqual(Array.from({ length: 20 }, (_, i) => [{ id: 3000 + i }]));
    expect(await db.statement("select count(*)::int as n from facts where note = 'alone'", [])).toEqual([{ n: 20 }]);
    expect(await db.statement('select count(*)::int as n from facts', [])).toEqual([{ n: 40 }]);
  });

  it('rejects every request, waiting or new, once its thread has died: no caller waits forever', async () => {
    const doomed = await EmbeddedDatabaseThread.open({
      dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'db-thread-doomed-')),
      startParams: PGlite.defaultStartParams,
      memoryReclaimIdleMs: 0,
    });
    const waiting = doomed.statement('select pg_sleep(0.2)', []);
    // The thread, ended from outside as a crash would end it.
    await (doomed as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect(waiting).rejects.toThrow(/thread exited/);
    await expect(doomed.statement('select 1', [])).rejects.toThrow(/thread exited/);
    await expect(doomed.statementTransaction((tx) => tx.statement('select 1', []))).rejects.toThrow(/thread exited/);
  });
});
