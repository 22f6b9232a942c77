import { setImmediate as yieldToLoop } from 'node:timers/promises';
import {
  countTokens,
  fingerprintOf,
  isHighSurrogate,
  isLowSurrogate,
  preTokenBoundaryBefore,
  tokensOf,
  type TokenizerName,
} from './token-count';

/** A budget below this cannot hold one character of every script (a code point is up to four byte tokens). */
export const MIN_MAX_TOKENS = 16;
export const MAX_MAX_TOKENS = 1_000_000;

/** One window of a text cut to a token budget (the `content_window` of a scrape answer). */
export interface TokenWindow {
  /** The window's text: whole blocks (paragraphs, list items, table rows) where the budget allows. */
  text: string;
  tokenizer: TokenizerName;
  /** Tokens in this window, exactly as the tokenizer counts the window's text. */
  tokens: number;
  /** Tokens in the whole text, counted at once. */
  total_tokens: number;
  /** Where the window starts and ends in the whole text (UTF-16 code units). */
  offset: number;
  end: number;
  total_chars: number;
  truncated: boolean;
  /** Pass it back as `cursor` (same request otherwise) for the next window; null at the end. */
  cursor: string | null;
}

/** A cursor that does not parse, or names another tokenizer or a position outside the text. */
export class InvalidCursor extends Error {}
/** The text changed since the cursor was handed out (the page was fetched again and differs). */
export class StaleCursor extends Error {}

export interface CursorState {
  v: 1;
  /** The offset the next window starts at. */
  o: number;
  /** The whole text's fingerprint. */
  f: string;
  t: TokenizerName;
}

/** A cursor as handed out; refused (InvalidCursor) when it is not one, or was cut with another tokenizer. */
export function parseCursor(cursor: string, tokenizer: TokenizerName): CursorState {
  let state: Partial<CursorState>;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorState>;
  } catch {
    throw new InvalidCursor('The cursor is not one this API handed out.');
  }
  if (
    state === null ||
    typeof state !== 'object' ||
    state.v !== 1 ||
    !Number.isSafeInteger(state.o) ||
    state.o! < 0 ||
    typeof state.f !== 'string'
  )
    throw new InvalidCursor('The cursor is not one this API handed out.');
  if (state.t !== tokenizer) throw new InvalidCursor(`The cursor was cut with ${String(state.t)}; ask with the same tokenizer.`);
  return state as CursorState;
}

/** Where a parsed cursor starts in this text; StaleCursor when the text is not the one it was cut from. */
export function offsetIn(state: CursorState, text: string): number {
  if (state.f !== fingerprintOf(text) || state.o > text.length)
    throw new StaleCursor('The content changed since this cursor was handed out: this window starts again from the beginning.');
  return state.o;
}

/** The offset a cursor names in this text (0 without one). */
export function offsetOfCursor(cursor: string | undefined, text: string, tokenizer: TokenizerName): number {
  return cursor === undefined || cursor === '' ? 0 : offsetIn(parseCursor(cursor, tokenizer), text);
}

function cursorOf(offset: number, text: string, tokenizer: TokenizerName): string {
  const state: CursorState = { v: 1, o: offset, f: fingerprintOf(text), t: tokenizer };
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

/**
 * The window of `text` from `offset` that fits `maxTokens`: as many whole blocks (text up to a
 * blank line) as fit; when not even the first fits, as many whole lines, then whole words (cuts
 * where the tokenizer splits anyway); a single word larger than the budget is cut between code
 * points. Windows read back to back are exactly the text. Counting yields to the event loop.
 */
export async function tokenWindowOf(
  text: string,
  options: { maxTokens: number; tokenizer: TokenizerName; offset?: number },
): Promise<TokenWindow> {
  const { tokenizer } = options;
  const budget = Math.max(MIN_MAX_TOKENS, Math.floor(options.maxTokens));
  const start = options.offset ?? 0;
  const total = await countTokens(text, tokenizer);
  let end = text.length;
  let tokens = start === 0 ? total : await countTokens(text.slice(start), tokenizer);
  if (tokens > budget) {
    end = await blockCut(text, start, budget, tokenizer);
    if (end <= start) end = await fineCut(text, start, budget, tokenizer);
    tokens = await countTokens(text.slice(start, end), tokenizer);
  }
  const truncated = end < text.length;
  return {
    text: text.slice(start, end),
    tokenizer,
    tokens,
    total_tokens: total,
    offset: start,
    end,
    total_chars: text.length,
    truncated,
    cursor: truncated ? cursorOf(end, text, tokenizer) : null,
  };
}

/** The furthest end of a whole block from `start` whose text fits the budget, or `start` when none does. */
async function blockCut(text: string, start: number, budget: number, tokenizer: TokenizerName): Promise<number> {
  const blockEnd = /\n[ \t]*\n/g;
  const ends: number[] = [];
  let sum = 0;
  let counted = 0;
  blockEnd.lastIndex = start;
  for (let match = blockEnd.exec(text); match; match = blockEnd.exec(text)) {
    let end = match.index + match[0].length;
    while (end < text.length && text.charCodeAt(end) === 10) end += 1;
    blockEnd.lastIndex = end;
    const piece = text.slice(ends.at(-1) ?? start, end);
    // Blocks counted apart add up to their count together where they meet at a pre-token
    // boundary; elsewhere the sum may differ a little, and the exact count below decides.
    sum += tokensOf(piece, tokenizer);
    if (sum > budget) break;
    ends.push(end);
    counted += piece.length;
    if (counted > 32_000) {
      counted = 0;
      await yieldToLoop();
    }
  }
  while (ends.length > 0 && (await countTokens(text.slice(start, ends.at(-1)), tokenizer)) > budget) ends.pop();
  return ends.at(-1) ?? start;
}

/**
 * Within a block: the furthest line end, else pre-token boundary, else code point boundary from
 * `start` whose text fits the budget. Whole slices (cut at pre-token boundaries, where counts add
 * up exactly) are counted forward while they fit; only the slice the budget ends in is bisected,
 * so the work is linear in the window, not in the window times its bisection steps. Always moves
 * on by at least one code point.
 */
async function fineCut(text: string, start: number, budget: number, tokenizer: TokenizerName): Promise<number> {
  let from = start;
  let used = 0;
  let sliceEnd = start;
  for (;;) {
    sliceEnd = Math.min(text.length, from + FINE_SLICE_CHARS);
    if (sliceEnd < text.length) {
      const boundary = preTokenBoundaryBefore(text, sliceEnd, from);
      if (boundary <= from) break;
      sliceEnd = boundary;
    }
    const tokens = tokensOf(text.slice(from, sliceEnd), tokenizer);
    if (used + tokens > budget || sliceEnd >= text.length) break;
    used += tokens;
    from = sliceEnd;
    await yieldToLoop();
  }
  // Bisect the slice the budget ends in: counts grow with the cut nearly always.
  const left = budget - used;
  let low = from;
  let high = sliceEnd;
  if (tokensOf(text.slice(from, high), tokenizer) <= left) low = high;
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if (tokensOf(text.slice(from, mid), tokenizer) <= left) low = mid;
    else high = mid;
  }
  const fits = async (end: number) => (await countTokens(text.slice(start, end), tokenizer)) <= budget;
  // A cut that still does not fit (a count that did not grow with the cut) is moved back.
  for (let limit = low; ;) {
    const cut = niceCut(text, start, limit);
    if (cut <= start + 2 || (await fits(cut))) return cut;
    limit = cut - 1;
  }
}

/** How much text fineCut counts at once before it yields. */
const FINE_SLICE_CHARS = 16_000;

/** A line end, else a word end, in the second half of [start, limit], else limit itself (code point whole, never start). */
function niceCut(text: string, start: number, limit: number): number {
  const half = start + (limit - start) / 2;
  const line = text.lastIndexOf('\n', limit - 1);
  if (line >= start && line + 1 > start && line + 1 >= half) return line + 1;
  const word = preTokenBoundaryBefore(text, limit, start);
  if (word > start && word >= half) return word;
  let cut = limit;
  if (cut > start && isLowSurrogate(text.charCodeAt(cut)) && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
  if (cut <= start) cut = Math.min(text.length, start + (isHighSurrogate(text.charCodeAt(start)) ? 2 : 1));
  return cut;
}
