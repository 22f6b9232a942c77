import { createTwoFilesPatch } from 'diff';
import fc from 'fast-check';
import { sideBySide } from '../../apps/console/src/monitors/side-by-side';

/** The console's side-by-side view of a monitor's unified diff holds both versions, line for line. */
describe(sideBySide.name, () => {
  const lines = fc.array(fc.stringMatching(/^[a-z ]{0,12}$/), { maxLength: 30 });

  it('puts every line of the diff on its side, in order, with its line number', () => {
    fc.assert(
      fc.property(lines, lines, (before, after) => {
        const a = before.map((line) => `${line}\n`).join('');
        const b = after.map((line) => `${line}\n`).join('');
        const rows = sideBySide(createTwoFilesPatch('u', 'u', a, b, 'previous', 'current', { context: 1_000_000 }));
        const lefts = rows.flatMap((r) => (r.kind !== 'hunk' && r.left !== null ? [[r.leftNo, r.left]] : []));
        const rights = rows.flatMap((r) => (r.kind !== 'hunk' && r.right !== null ? [[r.rightNo, r.right]] : []));
        // With the whole file as context, the left column is the version before and the right the one after.
        if (a !== b) {
          expect(lefts).toEqual(before.map((line, i) => [i + 1, line]));
          expect(rights).toEqual(after.map((line, i) => [i + 1, line]));
        }
      }),
    );
  });

  it('pairs a replaced line with its replacement and leaves a lone insertion on its side', () => {
    const rows = sideBySide(createTwoFilesPatch('u', 'u', 'a\nb\nc\n', 'a\nB\nc\nd\n', '', '', { context: 1 }));
    expect(rows.filter((r) => r.kind !== 'hunk').map((r) => [r.kind, 'left' in r ? r.left : null, 'right' in r ? r.right : null])).toEqual([
      ['same', 'a', 'a'],
      ['changed', 'b', 'B'],
      ['same', 'c', 'c'],
      ['added', null, 'd'],
    ]);
  });
});
