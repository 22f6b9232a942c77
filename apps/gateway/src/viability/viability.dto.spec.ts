import fc from 'fast-check';
import { distinctUrls, targetKeyOf } from './viability.dto';

describe('distinctUrls', () => {
  it('takes host case, default port, a missing slash and the fragment as one target', () => {
    expect(new Set(['https://Example.com', 'https://example.com/', 'https://example.com:443/#top'].map(targetKeyOf))).toEqual(
      new Set(['https://example.com/']),
    );
    expect(targetKeyOf('https://example.com/a?x=1')).not.toBe(targetKeyOf('https://example.com/a?x=2'));
  });

  it('keeps each URL once, as first written, in order of first appearance', () => {
    expect(
      distinctUrls([
        'https://Example.com',
        'https://example.com/',
        'https://example.com:443/#top',
        'https://example.com/a',
        'not a url',
        'not a url',
      ]),
    ).toEqual(['https://Example.com', 'https://example.com/a', 'not a url']);
  });

  it('for any list: a subsequence of the input, one entry per normalised URL, none lost', () => {
    const url = fc.oneof(
      fc.webUrl(),
      fc.constantFrom('https://a.example', 'https://A.example/', 'http://a.example:80/x', 'http://a.example/x'),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(url, { maxLength: 40 }), (urls) => {
        const out = distinctUrls(urls);
        let from = 0;
        for (const u of out) {
          from = urls.indexOf(u, from) + 1;
          expect(from).toBeGreaterThan(0);
        }
        expect(new Set(out.map(targetKeyOf)).size).toBe(out.length);
        expect(new Set(out.map(targetKeyOf))).toEqual(new Set(urls.map(targetKeyOf)));
      }),
      { numRuns: 300 },
    );
  });
});
