import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/**
 * The tokenizers a token budget is counted with (decision 0042): OpenAI's o200k_base (GPT-4o and
 * later) by default, cl100k_base (GPT-4, GPT-3.5 and most embedding models) on request. Counted by
 * gpt-tokenizer, whose ranks ship in the package (nothing is downloaded).
 */
export const TOKENIZERS = ['o200k_base', 'cl100k_base'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];
export const DEFAULT_TOKENIZER: TokenizerName = 'o200k_base';

interface Encoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

// Each encoding's ranks are a few MB: read on first use, not when the gateway starts.
const LOADERS: Record<TokenizerName, () => Encoding> = {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  o200k_base: () => require('gpt-tokenizer/encoding/o200k_base') as Encoding,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  cl100k_base: () => require('gpt-tokenizer/encoding/cl100k_base') as Encoding,
};
const loaded = new Map<TokenizerName, Encoding>();

function encodingOf(name: TokenizerName): Encoding {
  let encoding = loaded.get(name);
  if (!encoding) {
    encoding = LOADERS[name]();
    loaded.set(name, encoding);
  }
  return encoding;
}

// A page's text is text: "<|endoftext|>" in it is counted as the characters it is, never refused.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** The exact token count of a short text (no yielding: keep it to a window's size). */
export function tokensOf(text: string, tokenizer: TokenizerName): number {
  return text.length === 0 ? 0 : encodingOf(tokenizer).countTokens(text, AS_TEXT);
}

/** How much text is counted between two turns of the event loop, so a 10 MB page stalls no other request. */
const SLICE_CHARS = 32_000;

/**
 * A cut where both tokenizers' pre-tokenizers always split: after a line end and before a character
 * that is neither a space nor "/" (a run of punctuation takes the line ends and slashes after it),
 * or between a non-space and a space that ends no line. No pre-token crosses it, so the counts of
 * the two sides add up to the count of the whole (a property test holds every cut to this).
 */
export function isPreTokenBoundary(text: string, at: number): boolean {
  if (at <= 0 || at >= text.length) return true;
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  if (before === 10 || before === 13) return after !== 47 && !isSpace(after);
  return !isSpace(before) && isSpace(after) && after !== 10 && after !== 13 && !isHighSurrogate(before);
}

/** The pre-token boundary at or before `at` and after `floor`, else -1. */
export function preTokenBoundaryBefore(text: string, at: number, floor: number): number {
  for (let i = Math.min(at, text.length); i > floor; i -= 1) if (isPreTokenBoundary(text, i)) return i;
  return -1;
}

/**
 * The exact token count of a text of any size, counted in slices cut at pre-token boundaries with
 * the event loop served between them. A text with no boundary for a whole slice (one very long
 * word) is counted at once up to the next boundary.
 */
export async function countTokens(text: string, tokenizer: TokenizerName): Promise<number> {
  let total = 0;
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    if (end < text.length) {
      const cut = preTokenBoundaryBefore(text, end, start);
      if (cut > start) end = cut;
      else {
        end = start + SLICE_CHARS;
        while (end < text.length && !isPreTokenBoundary(text, end)) end += 1;
      }
    }
    total += tokensOf(text.slice(start, end), tokenizer);
    start = end;
    if (start < text.length) await yieldToLoop();
  }
  return total;
}

/** A short fingerprint of a text: a cursor names the text it was cut from. */
export function fingerprintOf(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

const SPACE = /\s/;

/** What the tokenizers' own patterns call a space (JavaScript's \s). */
function isSpace(code: number): boolean {
  return SPACE.test(String.fromCharCode(code));
}

/** The first half of a UTF-16 surrogate pair (a cut after it splits a code point). */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The second half of a UTF-16 surrogate pair. */
export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
