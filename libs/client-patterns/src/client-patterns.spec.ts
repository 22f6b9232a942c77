import fc from 'fast-check';
import { clientPattern, clientPatternProblem, clientPatternsHeld } from './client-patterns';

describe('client patterns', () => {
  it('compiles a source once and answers it again from the table, its lastIndex reset', () => {
    const first = clientPattern('\\d+', 'gu');
    expect('a1b22'.replace(first, '#')).toBe('a#b#');
    first.lastIndex = 3;
    expect(clientPattern('\\d+', 'gu')).toBe(first);
    expect(first.lastIndex).toBe(0);
    expect(clientPattern('\\d+', 'u')).not.toBe(first);
  });

  it('says why a pattern is not RE2 (backreferences, lookaround, broken syntax), and null for one that is', () => {
    for (const bad of ['(a)\\1', '(?=a)', '(?<=a)b', '(unclosed', '*'])
      expect({ bad, problem: clientPatternProblem(bad, 'u') }).toEqual({ bad, problem: expect.any(String) });
    expect(clientPatternProblem('^/docs/.*$', 'u')).toBeNull();
  });

  it('holds at most a bounded number of expressions however many distinct patterns clients send, and each still works', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{1,12}$/), { minLength: 1, maxLength: 50 }), (words) => {
        for (const [i, word] of words.entries()) {
          const source = `${word}-${i}-${Math.random().toString(36).slice(2)}`;
          expect(clientPattern(source, 'u').test(`x${source}y`)).toBe(true);
        }
        expect(clientPatternsHeld()).toBeLessThanOrEqual(1000);
      }),
      { numRuns: 60 },
    );
  });
});
