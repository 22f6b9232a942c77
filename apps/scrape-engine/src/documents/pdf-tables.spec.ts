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

  it('reads a header centred over its columns, the rows below starting where the header cells do not', () => {
    // As Chromium prints an unstyled table: header cells centred (here wider than their text), body cells from the left.
    const header = [run('Art if', 180, 700), run('Have last', 396, 700)];
    const body = [
      ['not', 'really'],
      ['skin', '930.8'],
      ['commission', '423.76'],
      ['621.76', 'as adipisicing for'],
      ['could the good', 'are she'],
    ];
    const runs = [...paragraph(PROSE, 740), ...header, ...grid(body, [45, 346], 684, 15.7), ...paragraph(PROSE, 580)];
    const { tables } = tablesOf(runs);
    expect(tables).toHaveLength(1);
    expect(tables[0].table).toEqual([['Art if', 'Have last'], ...body]);
  });

  it('reads a first row whose short cells are centred against a taller one drawn after them', () => {
    const header = [run('In', 62, 700), run('Ranking', 166, 700), run('Sessions', 318, 700)];
    // Header cells centred; row one: the third cell two lines tall, the short cells on a baseline between its lines, drawn first.
    const first = [run('40.7', 50, 678), run('new rates', 150, 678), run('that work in', 300, 684), run('radiation', 300, 672)];
    const rest = grid(
      [
        ['961.6', 'money', 'new'],
        ['798.81', 'looked', 'space'],
      ],
      [50, 150, 300],
      652,
      15.7,
    );
    const { tables } = tablesOf([...paragraph(PROSE, 740), ...header, ...first, ...rest, ...paragraph(PROSE, 590)]);
    expect(tables).toHaveLength(1);
    expect(tables[0].table).toEqual([
      ['In', 'Ranking', 'Sessions'],
      ['40.7', 'new rates', 'that work in radiation'],
      ['961.6', 'money', 'new'],
      ['798.81', 'looked', 'space'],
    ]);
  });

  it('gives every run to one table at most, whatever the grid (property)', () => {
    const cell = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    const shape = fc.record({
      columns: fc.integer({ min: 2, max: 5 }),
      rows: fc.integer({ min: 2, max: 8 }),
      centredHeader: fc.boolean(),
      pitch: fc.constantFrom(12, 14.5, 15.7, 22),
    });
    fc.assert(
      fc.property(shape, fc.array(cell, { minLength: 40, maxLength: 40 }), (g, words) => {
        const columns = Array.from({ length: g.columns }, (_, k) => 50 + k * 100);
        const body = Array.from({ length: g.rows }, (_, r) => Array.from({ length: g.columns }, (_, c) => words[(r * g.columns + c) % 40]));
        const header = columns.map((x, k) => run(`H${k}`, g.centredHeader ? x + 30 : x, 700));
        const runs = [...paragraph(PROSE, 740), ...header, ...grid(body, columns, 700 - g.pitch, g.pitch), ...paragraph(PROSE, 300)];
        const { rest, tables } = tablesOf(runs);
        const cells = tables
          .flatMap((t) => t.table!.flat())
          .join(' ')
          .split(/\s+/)
          .filter((w) => w !== '');
        const inked = (runs: TextRun[]) => runs.flatMap((r) => r.text.split(/\s+/)).filter((w) => w !== '');
        // Nothing read twice, nothing lost: the words of the tables and of the rest are the page's.
        expect([...cells, ...inked(rest)].sort()).toEqual(inked(runs).sort());
      }),
      { numRuns: 300 },
    );
  });

  it('reads a narrow table as Chromium prints it: cells 3 pt apart, a wrapped header centred, a tall cell drawn after the short ones', () => {
    // Runs as pdf.js gives them for such a table (x, right, baseline), in drawing order.
    const at = (text: string, x: number, right: number, y: number): TextRun => ({ text, x, y, width: right - x, size: SIZE });
    const runs = [
      ...paragraph(PROSE, 740),
      at('Now', 54.1, 73.5, 670),
      at('may', 54.6, 73, 658),
      at('Position', 93.7, 128.2, 670),
      at('broke', 98.5, 123.3, 658),
      at('Will spas', 142.6, 181.6, 664),
      at('An febrero', 188.1, 234.6, 664),
      at('Southeast', 240.7, 282.4, 664),
      at('190.14', 45, 72.5, 619),
      at('room his the', 85.6, 135.6, 619),
      at('haoyu', 139.3, 163.7, 619),
      at('699.34', 187.9, 215.4, 619),
      ...['it without', 'walks up', 'enable', 'color was', 'other'].map((text, i) => at(text, 237.8, 270, 643 - i * 12)),
      at('519.03', 45, 72.5, 574),
      at('an loi', 85.6, 108.1, 574),
      at('187.19', 139.3, 166.8, 574),
      at('ok to', 187.9, 208.2, 580),
      at('haoyu', 187.9, 212.4, 568),
      at('788.45', 237.8, 265.3, 574),
      ...paragraph(PROSE, 530),
    ];
    const { tables } = tablesOf(runs);
    expect(tables).toHaveLength(1);
    expect(tables[0].table).toEqual([
      ['Now may', 'Position broke', 'Will spas', 'An febrero', 'Southeast'],
      ['190.14', 'room his the', 'haoyu', '699.34', 'it without walks up enable color was other'],
      ['519.03', 'an loi', '187.19', 'ok to haoyu', '788.45'],
    ]);
  });

  it('keeps a cell of many short lines in its row: a narrow column wraps it a word a line', () => {
    const words = ['again', 'planned', 'freely', 'erupted', 'also', 'an', 'dev-repo', 'ex', 'du', 'wasi'];
    const runs = [
      ...paragraph(PROSE, 740),
      ...grid([['Id', 'Name', 'Kind']], [50, 150, 250], 700),
      ...words.map((word, i) => run(word, 50, 685 - i * 12)),
      run('this from', 150, 631),
      run('867.82', 250, 631),
      ...grid([['519.03', 'an loi', '187.19']], [50, 150, 250], 555),
      ...paragraph(PROSE, 520),
    ];
    const { tables } = tablesOf(runs);
    expect(tables).toHaveLength(1);
    expect(tables[0].table).toEqual([
      ['Id', 'Name', 'Kind'],
      [words.join(' '), 'this from', '867.82'],
      ['519.03', 'an loi', '187.19'],
    ]);
  });
});
