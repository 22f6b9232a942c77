import fc from 'fast-check';
import { distinctUrls } from './viability.dto';

const hrefOf = (url: string): string => {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
};

describe('distinctUrls', () => {
  it('keeps each URL once, as first written, in order of first appearance', () => {
    expect(distinctUrls(['https://Example.com', 'https://example.com/', 'https://example.com:443/#top', 'https://example.com/a', 'not a url', 'not a url'])).toEqual(['https://Example.com', 'https://example.com/a', 'not a url']);
  });

  it('for any list: a subsequence of the input, one entry per normalised URL, none lost', () => {
    const url = fc.oneof(fc.webUrl(), fc.constantFrom('https://a.example', 'https://A.example/', 'http://a.example:80/x', 'http://a.example/x'), fc.string());
    fc.assert(
      fc.property(fc.array(url, { maxLength: 40 }), (urls) => {
        const out = distinctUrls(urls);
        let from = 0;
        for (const u of out) {
          from = urls.indexOf(u, from) + 1;
          expect(from).toBeGreaterThan(0);
        }
        expect(new Set(out.map(hrefOf)).size).toBe(out.length);
        expect(new Set(out.map(hrefOf))).toEqual(new Set(urls.map(hrefOf)));
      }),
      { numRuns: 300 },
    );
  });
});
