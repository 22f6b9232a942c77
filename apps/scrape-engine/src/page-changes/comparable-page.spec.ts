import fc from 'fast-check';
import { MarkdownConverter } from '../formats/markdown-converter';
import { MainContentReader } from '../formats/main-content-reader';
import { PageFormatter } from '../formats/page-formatter';
import { SelectorExtractor } from '../extraction/selector-extractor';
import { comparableMarkdown } from './comparable-page';

let formatter: PageFormatter;
beforeAll(async () => {
  formatter = new PageFormatter(new MarkdownConverter(await MainContentReader.load()), new SelectorExtractor());
});
const options = { only_main_content: false, include_images: true, browser: false };
const page = (clock: string, ad: string, text = 'The article text that matters.') =>
  `<html><body><h1>Prices</h1><p>${text}</p><p>Generated at ${clock} today.</p><aside class="ad">Buy ${ad} now</aside></body></html>`;
const ignore = { selectors: ['.ad'], patterns: ['\\d{1,2}:\\d{2}(:\\d{2})?'] };

describe(comparableMarkdown.name, () => {
  it('leaves out what the ignore selectors match and the text the patterns match, whatever they hold', () => {
    const clock = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }));
    const ad = fc.stringMatching(/^[a-z ]{1,30}$/);
    fc.assert(
      fc.property(clock, clock, ad, ad, ([h1, m1, s1], [h2, m2, s2], ad1, ad2) => {
        const time = (h: number, m: number, s: number) => `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
        const a = comparableMarkdown(formatter, options, page(time(h1, m1, s1), ad1), 'https://shop.test/', ignore);
        const b = comparableMarkdown(formatter, options, page(time(h2, m2, s2), ad2), 'https://shop.test/', ignore);
        expect(a).toBe(b);
        expect(a).not.toContain('Buy');
      }),
    );
  });

  it('still sees a change the rules do not cover, and sees the clock and the advert without rules', () => {
    const url = 'https://shop.test/';
    const before = comparableMarkdown(formatter, options, page('10:00', 'shoes'), url, ignore);
    expect(comparableMarkdown(formatter, options, page('11:00', 'hats', 'Other text.'), url, ignore)).not.toBe(before);
    const none = { selectors: [], patterns: [] };
    expect(comparableMarkdown(formatter, options, page('10:00', 'shoes'), url, none)).not.toBe(
      comparableMarkdown(formatter, options, page('11:00', 'shoes'), url, none),
    );
    expect(comparableMarkdown(formatter, options, page('10:00', 'shoes'), url, none)).toContain('Buy shoes now');
  });
});
