import fs from 'node:fs';
import path from 'node:path';

/**
 * Every statement on a table is in its owner's store (docs/decisions/0012): SQL text and database
 * calls appear only in `apps/<context>/src/persistence/` and `libs/persistence/src/`. Use cases
 * may open a transaction (`db.sql.transaction`) to group store calls; they may not speak SQL.
 */
const ROOT = path.resolve(__dirname, '../..');

const SQL_TEXT = [
  /\bselect\b[^;'"`]{0,400}?\bfrom\s+[a-z_]+\b/i,
  /\binsert\s+into\s+[a-z_]+/i,
  /\bupdate\s+[a-z_]+(\s+[a-z])?\s+set\b/i,
  /\bdelete\s+from\s+[a-z_]+/i,
];
const DATABASE_CALLS = [/\b(?:sql|tx|within|run)\.(?:query|exec)\s*(?:<[^>]*>)?\s*\(/, /\$queryRaw|\$executeRaw/, /\.prisma\.\w+/];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' || entry.name === 'node_modules' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}

function isStore(file: string): boolean {
  const relative = path.relative(ROOT, file).split(path.sep).join('/');
  return /^apps\/[^/]+\/src\/persistence\//.test(relative) || relative.startsWith('libs/persistence/src/');
}

/** The string literals of a source file (quotes and template literals), comments left out. */
function literalsOf(source: string): string[] {
  const literals: string[] = [];
  const pattern = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g;
  for (const match of source.matchAll(pattern)) if (!match[0].startsWith('/')) literals.push(match[0]);
  return literals;
}

describe('statements live in stores', () => {
  const files = [...sourceFiles(path.join(ROOT, 'apps')), ...sourceFiles(path.join(ROOT, 'libs'))].filter((file) => !isStore(file));

  it('finds the source files (the check is not vacuous)', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('no SQL text outside stores and migrations', () => {
    const offenders = files.flatMap((file) =>
      literalsOf(fs.readFileSync(file, 'utf8'))
        .filter((literal) => SQL_TEXT.some((pattern) => pattern.test(literal)))
        .map((literal) => `${path.relative(ROOT, file)}: ${literal.slice(0, 80)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('no database call outside stores (use cases call stores)', () => {
    const offenders = files.flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => DATABASE_CALLS.some((pattern) => pattern.test(line)))
        .map((line) => `${path.relative(ROOT, file)}: ${line.trim().slice(0, 80)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('recognises SQL and database calls when it sees them', () => {
    expect(
      literalsOf("x = 'delete from jobs where id = $1'; // select a from b").filter((l) => SQL_TEXT.some((p) => p.test(l))),
    ).toHaveLength(1);
    expect(SQL_TEXT.some((p) => p.test('`update jobs j set started_at = $3`'))).toBe(true);
    expect(SQL_TEXT.some((p) => p.test("'Select the first option'"))).toBe(false);
    expect(DATABASE_CALLS.some((p) => p.test('await this.db.sql.query<Row>(TEXT, [id])'))).toBe(true);
    expect(DATABASE_CALLS.some((p) => p.test('const row = await this.db.prisma.client.findUnique({})'))).toBe(true);
  });
});
