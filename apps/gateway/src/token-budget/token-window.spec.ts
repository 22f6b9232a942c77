import fc from 'fast-check';
import { countTokens, isPreTokenBoundary, tokensOf, TOKENIZERS, type TokenizerName } from './token-count';
import { InvalidCursor, offsetOfCursor, StaleCursor, tokenWindowOf, type TokenWindow } from './token-window';

// Text as pages give it: words, spaces of several kinds, line ends, blank lines, slashes,
// punctuation, digits, and characters outside the BMP (a surrogate pair in UTF-16).
const PIECES = [
  'word',
  'Word',
  ' ',
  '  ',
  '\t',
  '\n',
  '\n\n',
  '\r\n',
  '/',
  '.',
  "'s",
  '1234',
  '日本語',
  '😀',
  'é',
  '\u00a0',
  '-',
  '|',
  '#',
];
const pageText = (maxLength: number) => fc.array(fc.constantFrom(...PIECES), { maxLength, size: 'max' }).map((parts) => parts.join(''));

/** Every window of a text, following the cursors from the start. */
async function allWindows(text: string, maxTokens: number, tokenizer: TokenizerName): Promise<TokenWindow[]> {
  const windows: TokenWindow[] = [];
  let cursor: string | undefined;
  for (;;) {
    const offset = offsetOfCursor(cursor, text, tokenizer);
    const window = await tokenWindowOf(text, { maxTokens, tokenizer, offset });
    windows.push(window);
    if (window.cursor === null) return windows;
    if (windows.length > text.length + 1) throw new Error('the windows do not move on');
    cursor = window.cursor;
  }
}

describe('token counts', () => {
  it.each([
    // OpenAI's published example ("How to count tokens with tiktoken").
    ['o200k_base', 'tiktoken is great!', 6],
    ['cl100k_base', 'tiktoken is great!', 6],
    ['o200k_base', '', 0],
  ] as const)('%s counts %j as %i tokens', (tokenizer, text, expected) => {
    expect(tokensOf(text, tokenizer)).toBe(expected);
  });

  it('counts a special token written in a page as the text it is, never refusing it', () => {
    expect(tokensOf('a <|endoftext|> b', 'o200k_base')).toBeGreaterThan(3);
  });

  it.each(TOKENIZERS)('%s: a pre-token boundary splits a text into parts whose counts add up to the whole', (tokenizer) => {
    fc.assert(
      fc.property(pageText(60), (text) => {
        const whole = tokensOf(text, tokenizer);
        for (let at = 1; at < text.length; at += 1)
          if (isPreTokenBoundary(text, at))
            expect(tokensOf(text.slice(0, at), tokenizer) + tokensOf(text.slice(at), tokenizer)).toBe(whole);
      }),
      { numRuns: 150 },
    );
  });

  it('counts a long text in slices exactly as at once, serving the event loop between them', async () => {
    const text = Array.from({ length: 12_000 }, (_, i) => `Paragraph ${i}: ünïcode 日本語 😀 /path/to/${i}.\n\n`).join('');
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    const sliced = await countTokens(text, 'o200k_base');
    clearInterval(ticking);
    expect(sliced).toBe(tokensOf(text, 'o200k_base'));
    expect(turns).toBeGreaterThan(0);
  });
});

describe(tokenWindowOf.name, () => {
  it.each(TOKENIZERS)('%s: windows read back to back are the text, each within its budget and counted exactly', async (tokenizer) => {
    await fc.assert(
      fc.asyncProperty(pageText(400), fc.integer({ min: 16, max: 120 }), async (text, budget) => {
        const windows = await allWindows(text, budget, tokenizer);
        expect(windows.map((w) => w.text).join('')).toBe(text);
        for (const window of windows) {
          expect(window.tokens).toBe(tokensOf(window.text, tokenizer));
          expect(window.total_tokens).toBe(tokensOf(text, tokenizer));
          if (window.truncated) {
            expect(window.tokens).toBeLessThanOrEqual(budget);
            expect(window.text.length).toBeGreaterThan(0);
          }
          // No window starts or ends inside a surrogate pair.
          const first = window.text.charCodeAt(0);
          expect(first >= 0xdc00 && first <= 0xdfff).toBe(false);
        }
      }),
      { numRuns: 120 },
    );
  });

  it('keeps whole blocks when they fit', async () => {
    const text =
      'The first paragraph, of some twenty tokens or so, comes here.\n\nThe second paragraph is a little longer than the first, and it would not fit.\n\nThird.\n';
    const window = await tokenWindowOf(text, { maxTokens: 24, tokenizer: 'o200k_base' });
    expect(window.text).toBe('The first paragraph, of some twenty tokens or so, comes here.\n\n');
    expect(window.truncated).toBe(true);
    expect(window.total_tokens).toBe(tokensOf(text, 'o200k_base'));
  });

  it('cuts a first block larger than the budget at a word, within the budget', async () => {
    const text = `${'lorem ipsum dolor sit amet '.repeat(40)}\n\nnext`;
    const window = await tokenWindowOf(text, { maxTokens: 20, tokenizer: 'o200k_base' });
    expect(window.tokens).toBeLessThanOrEqual(20);
    expect(window.tokens).toBeGreaterThan(10);
    expect(text.slice(window.end, window.end + 1)).toBe(' ');
  });

  it('cuts a single block far larger than the budget (no blank line in 300,000 characters) within the budget, at a word', async () => {
    const text = Array.from({ length: 30_000 }, (_, i) => `word${i % 97} `).join('') + '\n';
    const first = await tokenWindowOf(text, { maxTokens: 2000, tokenizer: 'o200k_base' });
    expect(first.tokens).toBeLessThanOrEqual(2000);
    expect(first.tokens).toBeGreaterThan(1800);
    expect(first.total_tokens).toBe(tokensOf(text, 'o200k_base'));
    expect(text[first.end]).toBe(' ');
    const second = await tokenWindowOf(text, { maxTokens: 2000, tokenizer: 'o200k_base', offset: first.end });
    expect(second.offset).toBe(first.end);
    expect(second.tokens).toBeLessThanOrEqual(2000);
  });

  it('cuts text with no spaces between code points, never inside a surrogate pair', async () => {
    const text = '😀日本語'.repeat(200);
    const windows = await allWindows(text, 16, 'o200k_base');
    expect(windows.length).toBeGreaterThan(5);
    expect(windows.map((w) => w.text).join('')).toBe(text);
    for (const w of windows) expect(Buffer.from(w.text, 'utf8').toString('utf8')).toBe(w.text);
  });

  it('answers the whole text untruncated when it fits', async () => {
    const window = await tokenWindowOf('short text', { maxTokens: 100, tokenizer: 'cl100k_base' });
    expect(window).toMatchObject({ text: 'short text', truncated: false, cursor: null, offset: 0, end: 10, tokenizer: 'cl100k_base' });
  });
});

describe(offsetOfCursor.name, () => {
  const text = 'one two three four five six seven eight nine ten '.repeat(20);

  it('refuses a cursor it did not hand out, or one cut with another tokenizer', async () => {
    const { cursor } = await tokenWindowOf(text, { maxTokens: 16, tokenizer: 'o200k_base' });
    expect(() => offsetOfCursor('not-a-cursor', text, 'o200k_base')).toThrow(InvalidCursor);
    expect(() => offsetOfCursor(Buffer.from('{"v":1,"o":-5,"f":"x","t":"o200k_base"}').toString('base64url'), text, 'o200k_base')).toThrow(
      InvalidCursor,
    );
    expect(() => offsetOfCursor(cursor!, text, 'cl100k_base')).toThrow(InvalidCursor);
  });

  it('refuses a cursor from a text that has changed since', async () => {
    const { cursor } = await tokenWindowOf(text, { maxTokens: 16, tokenizer: 'o200k_base' });
    expect(() => offsetOfCursor(cursor!, `${text}!`, 'o200k_base')).toThrow(StaleCursor);
    expect(offsetOfCursor(cursor!, text, 'o200k_base')).toBeGreaterThan(0);
  });
});
