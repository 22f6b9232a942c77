import fc from 'fast-check';
import { markdownTables, tableScore, teds } from '../../bench/src/table-structure';

/** The benchmark's table scorer (TEDS): what it says of tables whose difference is known. */
describe('TEDS', () => {
  const table = [
    ['Item', 'Price'],
    ['Apple', '1.20'],
    ['Pear', '0.90'],
  ];

  it('is 1 for the same table and 0 against nothing', () => {
    expect(teds(table, table)).toBe(1);
    expect(teds(table, [])).toBeLessThan(0.2);
  });

  it('costs a missing row its row and cells, and a typo a fraction of its cell', () => {
    // 10 nodes (table, 3 rows, 6 cells); a row dropped costs 3 of them.
    expect(teds(table, table.slice(0, 2))).toBeCloseTo(1 - 3 / 10, 5);
    expect(teds(table, [table[0]!, ['Apple', '1.21'], table[2]!])).toBeCloseTo(1 - 0.25 / 10, 5);
  });

  it('is symmetric and between 0 and 1 for any two tables (property)', () => {
    const tables = fc.array(fc.array(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 4 }), { maxLength: 5 });
    fc.assert(
      fc.property(tables, tables, (a, b) => {
        const ab = teds(a, b);
        expect(ab).toBeGreaterThanOrEqual(0);
        expect(ab).toBeLessThanOrEqual(1);
        expect(teds(b, a)).toBeCloseTo(ab, 9);
      }),
    );
  });

  it('reads GFM pipe tables out of markdown, escaped pipes kept in their cell', () => {
    const md = 'Intro\n\n| a | b \\| c |\n| --- | ---: |\n| 1 | 2 |\n\nText\n\n| x |\n| --- |\n';
    expect(markdownTables(md)).toEqual([
      [
        ['a', 'b | c'],
        ['1', '2'],
      ],
      [['x']],
    ]);
    expect(tableScore(md, md)).toBe(1);
    expect(tableScore(md, 'no tables')).toBe(0);
    expect(tableScore('no tables', md)).toBeNull();
  });

  it("scores a cell by its text: a link's words, no emphasis, no row that holds nothing, no table of pictures", () => {
    const truth = '|   |   |\n|---|---|\n| [Auckland](http://x/wiki "A") | **23/16** |\n\n| ![](a.png) |\n|---|\n';
    expect(markdownTables(truth)).toEqual([[['Auckland', '23/16']]]);
    expect(tableScore(truth, '| Auckland | 23/16 |\n| --- | --- |\n')).toBe(1);
  });
});
