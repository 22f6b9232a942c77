import fc from 'fast-check';
import type { TextRun } from './pdf-layout';
import { tablesOf, withTables } from './pdf-tables';

const SIZE = 10;
/** Characters as wide as half the font size: a run's width from its text. */
const run = (text: string, x: number, y: number): TextRun => ({ text, x, y, width: text.length * SIZE * 0.5, size: SIZE });

/** A grid drawn as Chromium prints a table: row by row, each cell a run at its column, a space run between. */
function grid(rows: string[][], columns: number[], top: number, pitch = SIZE * 1.45): TextRun[] {
  return rows.flatMap((row, r) =>
    row.flatMap((cell, c) => [
      run(cell, columns[c], top - r * pitch),
      ...(c < row.length - 1 ? [run(' ', columns[c] + cell.length * 5, top - r * pitch)] : []),
    ]),
  );
}

/** Text around a table runs across its columns (a table of two columns is told from a page of two columns by it). */
const PROSE = [
  'A paragraph above the table runs from one edge of the page to the other,',
  'as the text of a page does, line after line, across where the columns',
  'of the table below it start: what tells a table from two columns of text.',
];

/** A paragraph: one run a line, every line from the same left edge. */
const paragraph = (lines: string[], top: number): TextRun[] => lines.map((text, i) => run(text, 50, top - i * SIZE * 1.15));

describe('tablesOf', () => {
  it('finds a table drawn row by row, its first row the header, and leaves the text around it', () => {
    const rows = [
      ['Location', 'Jan', 'July'],
      ['Auckland', '23/16', '14/7'],
      ['Wellington', '20/13', '11/6'],
    ];
    const runs = [
      ...paragraph(['Temperatures over the year in the largest cities of the country are set out below'], 700),
      ...grid(rows, [50, 150, 250], 670),
    ];
    const { rest, tables } = tablesOf(runs);
    expect(tables.map((t) => t.table)).toEqual([rows]);
    expect(rest.map((r) => r.text)).toEqual(['Temperatures over the year in the largest cities of the country are set out below']);
  });

  it('takes a centred header and a cell wrapped on two lines beside a one-line one as one row', () => {
    const runs = [
      run('Symptom', 80, 700),
      run('Cause', 260, 700),
      run('Serving errors', 50, 685),
      run('Database refuses', 200, 685),
      run('Slow answers', 50, 664),
      run('CPUs are overloaded by', 200, 670.5),
      run('a bogosort', 200, 658),
      run('Cat GIFs missing', 50, 640),
      run('The network hates cats', 200, 640),
    ];
    expect(tablesOf([...paragraph(PROSE, 760), ...runs]).tables.map((t) => t.table)).toEqual([
      [
        ['Symptom', 'Cause'],
        ['Serving errors', 'Database refuses'],
        ['Slow answers', 'CPUs are overloaded by a bogosort'],
        ['Cat GIFs missing', 'The network hates cats'],
      ],
    ]);
  });

  it('finds no table in a list: markers in a column of their own, items wrapped beside them', () => {
    const runs = ['1.', '2.', '3.'].flatMap((marker, i) => [
      run(marker, 50, 700 - i * 23),
      run(`Item ${i + 1} of the list, long enough to wrap`, 70, 700 - i * 23),
      run('onto a second line', 70, 700 - i * 23 - 11.5),
    ]);
    expect(tablesOf(runs).tables).toEqual([]);
  });

  it('finds no table in a page of two columns of text', () => {
    const left = Array.from({ length: 8 }, (_, i) => run('Left column text that fills the column', 50, 700 - i * 11.5));
    const right = Array.from({ length: 8 }, (_, i) => run('Right column text that fills it too', 300, 700 - i * 11.5));
    expect(tablesOf([...left, ...right]).tables).toEqual([]);
  });

  it('finds no table in paragraphs, whatever their words, and every grid it is drawn', () => {
    const word = fc.stringMatching(/^[A-Za-z]{1,8}$/);
    const text = fc.array(word, { minLength: 1, maxLength: 14 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 12 }), (lines) => {
        expect(tablesOf(paragraph(lines, 700)).tables).toEqual([]);
      }),
    );
    const cell = fc.stringMatching(/^[A-Za-z0-9]{1,6}$/);
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 5 }),
        fc.integer({ min: 2, max: 6 }),
        fc.array(cell, { minLength: 30, maxLength: 30 }),
        (width, height, cells) => {
          const rows = Array.from({ length: height }, (_, r) => Array.from({ length: width }, (_, c) => cells[r * width + c]));
          const columns = Array.from({ length: width }, (_, c) => 50 + c * 60);
          const page = [...paragraph(PROSE, 760), ...grid(rows, columns, 700)];
          expect(tablesOf(page).tables.map((t) => t.table)).toEqual([rows]);
        },
      ),
    );
  });
});

describe('withTables', () => {
  it('puts a table before the first line below its top that it stands over', () => {
    const line = (text: string, y: number) => ({ text, x: 50, right: 500, y, size: SIZE, runs: [] });
    const table = { ...line('t', 650), table: [['a', 'b']] };
    expect(withTables([line('above', 700), line('below', 600)], [table]).map((l) => l.text)).toEqual(['above', 't', 'below']);
  });
});
