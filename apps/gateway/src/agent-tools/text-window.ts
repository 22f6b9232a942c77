import { isHighSurrogate, isLowSurrogate } from '../token-budget/token-count';

/** What agents get by default: about 25,000 characters, some 6,000 tokens. */
export const DEFAULT_MAX_CHARS = 25_000;
export const MAX_CHARS_LIMIT = 100_000;
/** Fewer is no use to a reader, and two keeps a surrogate pair whole. */
export const MIN_CHARS = 100;
/** A cut looks this far back for a line end, so a page is not split mid-line when it can be helped. */
const LINE_END_LOOKBACK = 2_000;

export interface TextWindowView {
  /** The part of the text shown. */
  text: string;
  /** Where it starts and ends in the whole text (UTF-16 code units, as JavaScript counts). */
  offset: number;
  end: number;
  total_chars: number;
  truncated: boolean;
  /** The offset of the next part, or null when this part reaches the end. */
  next_offset: number | null;
}

/**
 * One part of a long text for a reader with a token budget: at most `maxChars` (≥ 2) from `offset`,
 * cut after the last line end in the window's second half; without one there (HTML on long lines),
 * after the last space or tag end (`>`) there or before a tag's `<`, so no word or tag is split; only a window with
 * neither is cut at its size, never inside a surrogate pair. Parts read back to back are exactly
 * the whole text.
 */
export function textWindowOf(whole: string, offset: number, maxChars: number): TextWindowView {
  const total = whole.length;
  let start = Math.min(Math.max(0, offset), total);
  if (start > 0 && start < total && isLowSurrogate(whole.charCodeAt(start)) && isHighSurrogate(whole.charCodeAt(start - 1))) start -= 1;
  const budget = Math.max(2, maxChars);
  let end = Math.min(total, start + budget);
  if (end < total) {
    const floor = Math.max(start + Math.floor(budget / 2), end - LINE_END_LOOKBACK);
    const lineEnd = whole.lastIndexOf('\n', end - 1);
    const wordEnd = lineEnd >= floor ? -1 : lastWordOrTagEnd(whole, start, end, floor);
    if (lineEnd >= floor) end = lineEnd + 1;
    else if (wordEnd > 0) end = wordEnd;
    else if (isHighSurrogate(whole.charCodeAt(end - 1)) && end - 1 > start) end -= 1;
  }
  const truncated = end < total;
  return { text: whole.slice(start, end), offset: start, end, total_chars: total, truncated, next_offset: truncated ? end : null };
}

/** One sentence on what part of the text this is and how to read on. */
export function describeWindow(view: TextWindowView, readOn: string): string {
  if (view.total_chars === 0) return 'The page has no text content.';
  if (!view.truncated && view.offset === 0) return `Complete: all ${view.total_chars} characters.`;
  const shown = `Characters ${view.offset}–${view.end} of ${view.total_chars}`;
  return view.truncated ? `${shown} (truncated). ${readOn.replace('{next}', String(view.next_offset))}` : `${shown}: the last part.`;
}

/**
 * The latest cut in [floor, end) that splits no tag and no word (earlier only to keep a long tag
 * whole), or -1: just after a tag end (`>`)
 * or a space outside a tag, or just before a tag's `<` (a tag that runs past `end` is left whole for
 * the next part).
 */
function lastWordOrTagEnd(whole: string, start: number, end: number, floor: number): number {
  // Read backwards: a space is outside a tag once a `>` is met before any `<` (or nothing of either).
  let space = -1;
  for (let i = end - 1; i >= floor; i -= 1) {
    const code = whole.charCodeAt(i);
    if (code === 62 /* > */) return space > 0 ? space : i + 1;
    if (code === 60 /* < */ && opensTag(whole.charCodeAt(i + 1))) return i;
    if ((code === 32 || code === 9) && space < 0) space = i + 1;
  }
  // With no tag mark in the window's second half, the cut may still sit inside a long tag that opened
  // before the floor: look further back, as far as a line-end search would, to tell. Such a tag is
  // left whole for the next part when this part still has something before it.
  for (let i = floor - 1; i >= Math.max(start, end - LINE_END_LOOKBACK); i -= 1) {
    const code = whole.charCodeAt(i);
    if (code === 62 /* > */) break;
    if (code === 60 /* < */ && opensTag(whole.charCodeAt(i + 1))) return i > start ? i : -1;
  }
  return space;
}

/** `<` starts a tag when a letter, `/` or `!` follows it; `a < b` in text is not one. */
function opensTag(next: number): boolean {
  return next === 47 || next === 33 || (next >= 65 && next <= 90) || (next >= 97 && next <= 122);
}

/** A window's position as the tools' structured answers report it (content_window). */
export function windowFieldsOf(window: TextWindowView) {
  return {
    offset: window.offset,
    end: window.end,
    total_chars: window.total_chars,
    truncated: window.truncated,
    next_offset: window.next_offset,
  };
}
