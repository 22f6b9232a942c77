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
 * after the last space or tag end (`>`) there, so no word or tag is split; only a window with
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
    const wordEnd = lineEnd >= floor ? -1 : lastWordOrTagEnd(whole, end, floor);
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

/** Just after the last tag end (`>`) or space outside a tag in [floor, end), or -1. */
function lastWordOrTagEnd(whole: string, end: number, floor: number): number {
  // Read backwards: a space is outside a tag once a `>` is met before any `<` (or nothing of either).
  let space = -1;
  let outside = false;
  for (let i = end - 1; i >= floor; i -= 1) {
    const code = whole.charCodeAt(i);
    if (code === 62 /* > */) return space > 0 ? space : i + 1;
    if (code === 60 /* < */) {
      space = -1;
      outside = true;
    } else if (code === 32 || code === 9) {
      if (outside) return i + 1;
      if (space < 0) space = i + 1;
    }
  }
  return space;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
