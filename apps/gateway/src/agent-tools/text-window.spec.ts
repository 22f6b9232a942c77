import fc from 'fast-check';
import { describeWindow, textWindowOf } from './text-window';

describe('textWindowOf', () => {
  const text = fc
    .array(fc.oneof(fc.string({ unit: 'grapheme' }), fc.constantFrom('\n', '😀', '𝔘', 'é'), fc.string({ unit: 'binary' })), {
      maxLength: 60,
    })
    .map((parts) => parts.join(''));

  it('reads back to back from offset 0 to exactly the whole text, never longer than max_chars, never splitting a surrogate pair', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 2, max: 40 }), (whole, maxChars) => {
        let read = '';
        let offset: number | null = 0;
        let parts = 0;
        while (offset !== null) {
          const view = textWindowOf(whole, offset, maxChars);
          expect(view.offset).toBe(offset);
          expect(view.text.length).toBeLessThanOrEqual(maxChars);
          expect(view.text.length > 0 || whole.length === 0).toBe(true);
          const last = view.text.charCodeAt(view.text.length - 1);
          if (view.truncated && last >= 0xd800 && last <= 0xdbff) {
            // Only a lone high surrogate (no pair to keep) may end a part.
            expect(whole.charCodeAt(view.end) >= 0xdc00 && whole.charCodeAt(view.end) <= 0xdfff).toBe(false);
          }
          read += view.text;
          offset = view.next_offset;
          parts += 1;
          expect(parts).toBeLessThanOrEqual(whole.length + 1);
        }
        expect(read).toBe(whole);
      }),
      { numRuns: 1000 },
    );
  });

  it('cuts at a line end near the limit, and an offset past the end gives an empty last part', () => {
    const page = `${'a'.repeat(70)}\n${'b'.repeat(70)}\n`;
    expect(textWindowOf(page, 0, 100)).toMatchObject({ text: `${'a'.repeat(70)}\n`, end: 71, truncated: true, next_offset: 71 });
    expect(textWindowOf(page, 500, 100)).toMatchObject({ text: '', offset: page.length, truncated: false, next_offset: null });
  });

  it('without a line end near the limit, cuts after a space or a tag end: HTML on one long line is never split inside a tag or a word', () => {
    const tag = fc.constantFrom(
      '<p class="lead">',
      '</p>',
      '<a href="/x?a=1&amp;b=2">',
      '</a>',
      '<br/>',
      '<span data-id="42">',
      '</span>',
      '<img alt="a long description of the picture that is shown here" src="/p.png">',
    );
    const word = fc.stringMatching(/^[a-z]{1,12}$/);
    const html = fc
      .array(
        fc.oneof(
          tag,
          word,
          word.map((w) => `${w} `),
        ),
        { minLength: 10, maxLength: 200 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(html, fc.integer({ min: 100, max: 400 }), (page, maxChars) => {
        for (let offset: number | null = 0; offset !== null;) {
          const view = textWindowOf(page, offset, maxChars);
          if (view.truncated) {
            // Inside a tag: a '<' after the part's last '>'. Inside a word: letters on both sides of the cut.
            expect(view.text.lastIndexOf('<') > view.text.lastIndexOf('>')).toBe(false);
            if (/[a-z]$/.test(view.text) && /^[a-z]/.test(page.slice(view.end))) expect(view.text.length).toBe(maxChars);
          }
          offset = view.next_offset;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a tag that runs past the window is left whole for the next part, even when the nearest space is far back', () => {
    // Found by the property above: no space or tag end in the second half, only the tag's own space.
    const page = `<p class="lead"><p class="lead">a ${'a'.repeat(42)}<a href="/x?a=1&amp;b=2">a`;
    const view = textWindowOf(page, 0, 100);
    expect(view.text.endsWith('a'.repeat(42))).toBe(true);
    expect(page.slice(view.end)).toBe('<a href="/x?a=1&amp;b=2">a');
    const long = `intro words ${'x'.repeat(30)}<img alt="${'words and more '.repeat(8)}" src="/p.png"> after`;
    expect(textWindowOf(long, 0, 100).text).toBe(`intro words ${'x'.repeat(30)}`);
    expect(textWindowOf('a < b and more text '.repeat(10), 0, 100).text.endsWith(' ')).toBe(true);
  });

  it('an offset inside a surrogate pair starts at the pair', () => {
    expect(textWindowOf('a😀b', 2, 10).text).toBe('😀b');
  });

  it('says how to read on', () => {
    const view = textWindowOf('x'.repeat(30), 0, 10);
    expect(describeWindow(view, 'Call again with offset={next}.')).toBe('Characters 0–10 of 30 (truncated). Call again with offset=10.');
    expect(describeWindow(textWindowOf('abc', 0, 10), '')).toBe('Complete: all 3 characters.');
  });
});
