import fc from 'fast-check';
import { tokensOf } from '../token-budget/token-count';
import { conflictingBudgets, cutToShare, shareOf, toolWindowOf, windowAskedOf } from './tool-window';

const TEXT = Array.from({ length: 40 }, (_, i) => `https://example.com/page-${i}?q=${'é'.repeat(i % 5)}`).join('\n');

describe('tool windows', () => {
  it('asks by characters by default, by tokens with max_tokens, and refuses both at once or a cursor without max_tokens', () => {
    expect(windowAskedOf({})).toEqual({ ok: true, asked: { by: 'chars', maxChars: 25_000, offset: 0 } });
    expect(windowAskedOf({ max_tokens: 50 })).toMatchObject({
      ok: true,
      asked: { by: 'tokens', budget: { maxTokens: 50, tokenizer: 'o200k_base' } },
    });
    expect(windowAskedOf({ max_tokens: 50, offset: 10 })).toMatchObject({ ok: false, problems: [{ type: 'conflicting_windows' }] });
    expect(windowAskedOf({ cursor: 'x' })).toMatchObject({
      ok: false,
      problems: [{ loc: ['arguments', 'cursor'], type: 'missing_max_tokens' }],
    });
    expect(windowAskedOf({ max_tokens: 50, cursor: 'made-up' })).toMatchObject({ ok: false, problems: [{ type: 'invalid_cursor' }] });
  });

  it('reads any text to its end window by window, each within its budget, counted exactly, back to the whole', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 400 }), fc.integer({ min: 16, max: 80 }), async (text, maxTokens) => {
        const parts: string[] = [];
        let cursor: string | undefined;
        for (let n = 0; n === 0 || cursor; n += 1) {
          const asked = windowAskedOf({ max_tokens: maxTokens, ...(cursor ? { cursor } : {}) });
          if (!asked.ok) throw new Error(JSON.stringify(asked.problems));
          const window = await toolWindowOf(text, asked.asked);
          expect(window.error).toBeNull();
          expect(window.tokens!.tokens).toBe(tokensOf(window.text, 'o200k_base'));
          expect(window.tokens!.tokens).toBeLessThanOrEqual(maxTokens);
          parts.push(window.text);
          cursor = window.tokens!.cursor ?? undefined;
        }
        expect(parts.join('')).toBe(text);
      }),
      { numRuns: 60 },
    );
  });

  it('starts again from the beginning, saying content_changed, when the cursor was cut from another text', async () => {
    const first = await toolWindowOf(TEXT, (windowAskedOf({ max_tokens: 30 }) as { ok: true; asked: never }).asked);
    const asked = windowAskedOf({ max_tokens: 30, cursor: first.tokens!.cursor! });
    if (!asked.ok) throw new Error('refused');
    const other = await toolWindowOf(`${TEXT}\nhttps://example.com/new`, asked.asked);
    expect(other.offset).toBe(0);
    expect(other.error).toMatchObject({ code: 'content_changed' });
  });

  it('shares a budget among the texts shown: each cut at whole lines and said where, in characters or tokens', async () => {
    expect(shareOf({}, 4, 20_000)).toEqual({ by: 'chars', chars: 5_000 });
    expect(shareOf({ max_tokens: 100 }, 4)).toEqual({ by: 'tokens', tokens: 25, tokenizer: 'o200k_base' });
    expect(shareOf({ max_tokens: 20 }, 4, 0)).toMatchObject({ tokens: 16 });
    const byTokens = await cutToShare(TEXT, { by: 'tokens', tokens: 40, tokenizer: 'cl100k_base' });
    expect(byTokens).toMatch(/\n\[cut at (\d+) of (\d+) tokens \(cl100k_base\)\]$/);
    const kept = byTokens.slice(0, byTokens.lastIndexOf('\n['));
    expect(TEXT.startsWith(kept)).toBe(true);
    expect(tokensOf(kept, 'cl100k_base')).toBeLessThanOrEqual(40);
    expect(await cutToShare(TEXT, { by: 'chars', chars: 200 })).toMatch(/\n\[cut at \d+ of \d+ characters\]$/);
    expect(await cutToShare('short', { by: 'chars', chars: 200 })).toBe('short');
    expect(conflictingBudgets({ max_chars: 500, max_tokens: 100 })).toMatchObject([{ type: 'conflicting_windows' }]);
    expect(conflictingBudgets({ max_tokens: 100 })).toEqual([]);
  });
});
