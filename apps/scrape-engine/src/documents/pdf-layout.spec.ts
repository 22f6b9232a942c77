import fc from 'fast-check';
import { blocksOf, bodySizeOf, furnitureOf, headingLevelsOf, linesOf, readingOrder, type TextRun } from './pdf-layout';

const run = (text: string, x: number, y: number, size = 12): TextRun => ({ text, x, y, width: text.length * size * 0.5, size });

describe('pdf layout', () => {
  it('loses no character and repeats none, whatever the runs and their order (property)', () => {
    const runs = fc.array(
      fc.record({
        text: fc.stringMatching(/^[A-Za-z]{1,12}$/),
        x: fc.integer({ min: 0, max: 550 }),
        y: fc.integer({ min: 0, max: 800 }),
        size: fc.constantFrom(9, 10, 12, 18, 24),
      }),
      { maxLength: 80 },
    );
    fc.assert(
      fc.property(runs, (given) => {
        const all = given.map((r) => run(r.text, r.x, r.y, r.size));
        const lines = readingOrder(linesOf(all), 595);
        const levels = headingLevelsOf(lines, bodySizeOf(lines));
        // Characters, not words: runs drawn over each other may join into one word.
        const chars = (texts: string[]) => texts.join('').replace(/\s+/g, '').split('').sort().join('');
        expect(chars(blocksOf(lines, bodySizeOf(lines), levels).map((b) => b.text))).toBe(chars(given.map((r) => r.text)));
      }),
      { numRuns: 300 },
    );
  });

  it('reads a page drawn bottom first from the top', () => {
    const lines = linesOf([run('third', 50, 600), run('second', 50, 700), run('first', 50, 800), run('fourth', 50, 500)]);
    expect(lines.map((l) => l.text)).toEqual(['first', 'second', 'third', 'fourth']);
  });

  it('keeps two columns that share baselines apart, left column first', () => {
    const runs: TextRun[] = [];
    for (let i = 0; i < 6; i += 1)
      runs.push(run(`left line ${i} with some words`, 50, 700 - i * 14), run(`right line ${i} with some words`, 320, 700 - i * 14));
    const ordered = readingOrder(linesOf(runs), 595).map((l) => l.text);
    expect(ordered.slice(0, 6).every((t) => t.startsWith('left'))).toBe(true);
    expect(ordered.slice(6).every((t) => t.startsWith('right'))).toBe(true);
  });

  it('drops only what repeats in the margins of most pages', () => {
    const page = (n: number) => ({
      height: 800,
      lines: linesOf([run(`Page ${n} of 3`, 250, 20), run('Body text that repeats', 50, 400), run('Report title', 250, 780)]),
    });
    const furniture = furnitureOf([page(1), page(2), page(3)]);
    expect([...furniture].sort()).toEqual(['page # of #', 'report title']);
  });
});
