import fc from 'fast-check';
import { isPageWanted, pageRangesOf } from './document-terms';

describe('pageRangesOf', () => {
  it('reads what it writes: any list of forward ranges, however spaced', () => {
    const range = fc
      .tuple(fc.integer({ min: 1, max: 99_999 }), fc.option(fc.integer({ min: 0, max: 500 })), fc.boolean())
      .map(([first, span, open]) => ({ first, last: open ? null : first + (span ?? 0) }));
    fc.assert(
      fc.property(fc.array(range, { minLength: 1, maxLength: 100 }), fc.constantFrom('', ' '), (ranges, gap) => {
        const text = ranges
          .map((r) => (r.last === null ? `${r.first}${gap}-` : r.last === r.first ? `${r.first}` : `${r.first}-${gap}${r.last}`))
          .join(`,${gap}`);
        expect(pageRangesOf(text)).toEqual(ranges);
      }),
    );
  });

  it('answers any string with ranges or a reason, never a throw, and never a range that runs backwards or starts at 0', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[0-9, -]{1,40}$/)), (text) => {
        const read = pageRangesOf(text);
        if (typeof read === 'string') return;
        for (const r of read) expect(r.first >= 1 && (r.last === null || r.last >= r.first)).toBe(true);
      }),
    );
  });

  it('refuses what is not a page list, with the reason', () => {
    expect(pageRangesOf('5-3')).toMatch(/runs backwards/);
    expect(pageRangesOf('0')).toMatch(/count from 1/);
    expect(pageRangesOf('first')).toMatch(/counted from 1/);
    expect(pageRangesOf(Array.from({ length: 101 }, (_, i) => String(i + 1)).join(','))).toMatch(/at most 100/);
  });

  it('wants exactly the pages inside some range', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 10 })), { maxLength: 5 }),
        fc.integer({ min: 1, max: 70 }),
        (pairs, page) => {
          const ranges = pairs.map(([first, span]) => ({ first, last: first + span }));
          expect(isPageWanted(ranges, page)).toBe(pairs.some(([first, span]) => page >= first && page <= first + span));
        },
      ),
    );
    expect(isPageWanted(null, 12345)).toBe(true);
  });
});
