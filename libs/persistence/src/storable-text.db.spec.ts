import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database';
import { postgresAvailable } from '../../../test/support/infrastructure';
import { type DatabaseConnection, openDatabase } from './database-connection';
import { storableJson, storableText } from './storable-text';

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/** Any string, lone surrogates and NUL included. */
const anyText = fc.string({ unit: 'binary', maxLength: 30 }).map((s) => (Math.random() < 0.3 ? `${s}\u0000` : s));

/**
 * Whatever a scraped page or a client sends, Postgres stores it: every string through SqlExecutor
 * into text, every JSON document through storableJson into jsonb, on both databases.
 */
type Prepared = { settings: { databaseUrl: string | null; dataDir: string }; drop: () => Promise<void> };
const databases: Array<[string, () => Promise<Prepared>]> = [
  [
    'PGlite',
    async () => ({
      settings: { databaseUrl: null, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'storable-')) },
      drop: async () => undefined,
    }),
  ],
];
if (postgresAvailable()) {
  databases.push([
    'Postgres',
    async () => {
      const database: TestDatabase = await createTestDatabase('storable');
      return { settings: { databaseUrl: database.url, dataDir: '' }, drop: () => database.drop() };
    },
  ]);
}

describe.each(databases)('storable text on %s', (_name, prepare) => {
  let db: DatabaseConnection;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const prepared = await prepare();
    drop = prepared.drop;
    db = await openDatabase(prepared.settings);
    await db.sql.exec('create table storable_probe (t text, j jsonb)');
  });
  afterAll(async () => {
    await db?.release();
    await drop?.();
  });

  it('stores any string in text and any JSON in jsonb, changing only what cannot be stored', async () => {
    await fc.assert(
      fc.asyncProperty(anyText, fc.dictionary(anyText, anyText, { maxKeys: 4 }), async (text, doc) => {
        const [row] = await db.sql.query<{ t: string; j: Record<string, string> }>(
          'insert into storable_probe (t, j) values ($1, $2::jsonb) returning t, j',
          [text, storableJson({ text, doc })],
        );
        expect(row.t).toBe(storableText(text));
        expect(row.j.text).toBe(storableText(text));
        expect(Object.keys(row.j)).toEqual(['text', 'doc'].sort((a, b) => a.length - b.length || a.localeCompare(b)));
        // A string with nothing to change is stored exactly.
        if (!/\u0000|[\uD800-\uDFFF]/.test(text)) expect(row.t).toBe(text);
      }),
      { numRuns: 200, seed },
    );
  });

  it('stores strings inside a transaction the same way', async () => {
    const stored = await db.sql.transaction(async (tx) =>
      tx.query<{ t: string }>('insert into storable_probe (t) values ($1) returning t', ['a\u0000b\uD800c']),
    );
    expect(stored[0].t).toBe('a\uFFFDb\uFFFDc');
  });
});
