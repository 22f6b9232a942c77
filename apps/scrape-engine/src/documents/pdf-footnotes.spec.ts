import fc from 'fast-check';
import { footnotesOf } from './pdf-footnotes';
import { linesOf, type TextRun } from './pdf-layout';

const run = (text: string, x: number, y: number, size = 11): TextRun => ({ text, x, y, width: text.length * size * 0.5, size });
const unique = (mark: string) => mark;

describe('footnotesOf', () => {
  it('takes the small print a page ends with as notes when its markers are raised in the text', () => {
    const lines = linesOf([
      run('The survey covered households', 70, 700),
      run('1', 230, 704, 7),
      run('in four regions.', 238, 700),
      run('1', 70, 100, 7),
      run('Drawn at random from the register', 76, 97, 8),
      run('of addresses.', 70, 87, 8),
    ]);
    const { lines: body, notes } = footnotesOf(lines, 11, 842, unique);
    expect(body.map((l) => l.text)).toEqual(['The survey covered households1 in four regions.']);
    expect(notes).toEqual([
      { label: '1', text: 'Drawn at random from the register of addresses.', markdown: 'Drawn at random from the register of addresses.' },
    ]);
    expect(body[0].runs.find((r) => r.text === '1')?.note).toBe('1');
  });

  it('leaves small print with no raised marker in the text where it is (a caption, a disclaimer)', () => {
    const lines = linesOf([run('A paragraph of the body text.', 70, 700), run('1 in 5 said so; figures are rounded.', 70, 100, 8)]);
    const read = footnotesOf(lines, 11, 842, unique);
    expect(read.notes).toEqual([]);
    expect(read.lines).toBe(lines);
  });

  it('loses no word and invents none, whatever the small print (property)', () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    const page = fc.record({
      body: fc.array(fc.array(word, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }),
      raised: fc.array(fc.constantFrom('1', '2', '3', '*'), { maxLength: 3 }),
      notes: fc.array(fc.record({ mark: fc.constantFrom('1', '2', '3', '*', ''), words: fc.array(word, { minLength: 1, maxLength: 6 }) }), {
        maxLength: 4,
      }),
    });
    fc.assert(
      fc.property(page, (p) => {
        const runs: TextRun[] = [];
        p.body.forEach((words, i) => {
          runs.push(run(words.join(' '), 70, 700 - i * 14));
          if (p.raised[i]) runs.push(run(p.raised[i], 70 + words.join(' ').length * 5.5, 704 - i * 14, 7));
        });
        p.notes.forEach((note, i) => runs.push(run(`${note.mark ? `${note.mark} ` : ''}${note.words.join(' ')}`, 70, 150 - i * 10, 8)));
        const lines = linesOf(runs);
        const read = footnotesOf(lines, 11, 842, unique);
        const words = (texts: string[]) =>
          texts
            .join(' ')
            .split(/\s+/)
            .filter((w) => w !== '');
        const given = words(lines.map((l) => l.text));
        const kept = [...words(read.lines.map((l) => l.text)), ...read.notes.flatMap((n) => [n.label, ...words([n.text])])];
        expect(kept.join('').split('').sort()).toEqual(given.join('').split('').sort());
      }),
      { numRuns: 300 },
    );
  });
});
