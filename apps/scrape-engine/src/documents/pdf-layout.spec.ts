import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { blocksOf, bodySizeOf, escapeInline, furnitureOf, headingLevelsOf, linesOf, readingOrder, type TextRun } from './pdf-layout';

const run = (text: string, x: number, y: number, size = 12, bold = false): TextRun => ({
  text,
  x,
  y,
  width: text.length * size * 0.5,
  size,
  ...(bold ? { bold } : {}),
});

/** A page's markdown from its runs, laid out as the reader lays them out. */
function markdownOf(runs: TextRun[]): string[] {
  const lines = readingOrder(linesOf(runs), 595);
  const body = bodySizeOf(lines);
  return blocksOf(lines, body, headingLevelsOf(lines, body)).map((b) => b.markdown);
}

/** Lines of body text from y down, each reaching the column's edge (x 50 to 500 at size 12). */
const body = (y: number, n: number, word = 'body'): TextRun[] =>
  Array.from({ length: n }, (_, i) => run(`${word} text of a paragraph set line ${i} to fill the whole measure of it`, 50, y - i * 14));

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

  it('reads a bold line standing alone at body size as a heading below the larger ones', () => {
    const md = markdownOf([
      run('Report', 50, 780, 20, true),
      ...body(740, 4),
      run('Method details', 50, 660, 12, true),
      ...body(640, 4, 'more'),
    ]);
    expect(md[0]).toBe('# Report');
    expect(md[2]).toBe('## Method details');
    expect(md.filter((b) => b.startsWith('#'))).toHaveLength(2);
  });

  it('keeps bold text that reads as a paragraph a paragraph: a lead-in, a bold line running on, a bold sentence', () => {
    const leadIn = markdownOf([...body(780, 3), run('Note:', 50, 720, 12, true), ...body(706, 3)]);
    expect(leadIn.some((b) => b.startsWith('#'))).toBe(false);
    const runningOn = markdownOf([
      ...body(780, 3),
      run('A first line set in bold that runs on to the edge of its column, and', 50, 720, 12, true),
      ...body(706, 3),
    ]);
    expect(runningOn.some((b) => b.startsWith('#'))).toBe(false);
    const sentence = markdownOf([...body(780, 3), run('We are building a machine.', 50, 720, 12, true), ...body(700, 3)]);
    expect(sentence.some((b) => b.startsWith('#'))).toBe(false);
  });

  it('reads a heading broken over two short lines (centred) as one heading', () => {
    const md = markdownOf([run('A title centred and', 200, 780, 20), run('broken for balance', 205, 756, 20), ...body(720, 6)]);
    expect(md[0]).toBe('# A title centred and broken for balance');
  });

  it('escapes what markdown would read as markup, so that the text reads back as itself (property)', () => {
    const markdown = new MarkdownIt();
    const decode = (html: string) =>
      html.replace(/&(lt|gt|quot|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&' })[name]!);
    const text = fc.stringMatching(/^[a-z0-9 *_`~<>[\]()!&;#/\\]{0,24}$/).filter((t) => t.trim() === t && t !== '');
    fc.assert(
      fc.property(text, (given) => {
        expect(decode(markdown.renderInline(escapeInline(given)))).toBe(given);
      }),
      { numRuns: 2000 },
    );
  });
});
