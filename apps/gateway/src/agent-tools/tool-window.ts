import type { ContentWindow, ContentWindowError } from '@lib/contracts';
import { RequestValidationError } from '../gateway.errors';
import { type ContentBudget, contentBudgetOf } from '../token-budget/scrape-answer-window';
import { DEFAULT_TOKENIZER } from '../token-budget/token-count';
import { MIN_MAX_TOKENS, offsetIn, StaleCursor, tokenWindowOf } from '../token-budget/token-window';
import { DEFAULT_MAX_CHARS, describeWindow, MIN_CHARS, textWindowOf, type TextWindowView, windowFieldsOf } from './text-window';
import type { ValidationProblem } from '@lib/contracts';

/** What an agent asked of a tool's text: characters (max_chars, offset) or tokens (max_tokens, cursor, tokenizer; decision 0042). */
export interface WindowArguments {
  max_chars?: number;
  offset?: number;
  max_tokens?: number;
  cursor?: string;
  tokenizer?: ContentWindow['tokenizer'];
}

export type WindowAsked = { by: 'chars'; maxChars: number; offset: number } | { by: 'tokens'; budget: ContentBudget };

/** A tool answer's window: by characters, or by tokens with the counts and cursor; and why nothing is there, if so. */
export type ToolWindow = TextWindowView & {
  tokens: Pick<ContentWindow, 'tokenizer' | 'tokens' | 'total_tokens' | 'cursor'> | null;
  error: ContentWindowError | null;
};

/**
 * The window the arguments ask for, or the problems with them: one way of cutting at a time, a
 * cursor only beside max_tokens and only one this API handed out (checked before any work is done).
 */
export function windowAskedOf(args: WindowArguments): { ok: true; asked: WindowAsked } | { ok: false; problems: ValidationProblem[] } {
  const conflicts = conflictingBudgets(args);
  if (conflicts.length > 0) return { ok: false, problems: conflicts };
  try {
    const budget = contentBudgetOf(args, ['arguments']);
    if (budget) return { ok: true, asked: { by: 'tokens', budget } };
  } catch (error) {
    if (error instanceof RequestValidationError) return { ok: false, problems: error.problems };
    throw error;
  }
  return { ok: true, asked: { by: 'chars', maxChars: args.max_chars ?? DEFAULT_MAX_CHARS, offset: args.offset ?? 0 } };
}

/** The asked-for window of a text; a cursor cut from another text starts again at 0 and says content_changed. */
export async function toolWindowOf(text: string, asked: WindowAsked): Promise<ToolWindow> {
  if (asked.by === 'chars') return { ...textWindowOf(text, asked.offset, asked.maxChars), tokens: null, error: null };
  const { budget } = asked;
  let offset = 0;
  let error: ContentWindowError | null = null;
  if (budget.cursor)
    try {
      offset = offsetIn(budget.cursor, text);
    } catch (stale) {
      if (!(stale instanceof StaleCursor)) throw stale;
      error = { code: 'content_changed', message: stale.message };
    }
  const {
    text: part,
    tokenizer,
    tokens,
    total_tokens,
    cursor,
    ...position
  } = await tokenWindowOf(text, {
    maxTokens: budget.maxTokens,
    tokenizer: budget.tokenizer,
    offset,
  });
  return {
    ...position,
    text: part,
    next_offset: position.truncated ? position.end : null,
    tokens: { tokenizer, tokens, total_tokens, cursor },
    error,
  };
}

/** Nothing to read is a failed call with its reason (a text that changed since the cursor is read from its start, and said so). */
export function unreadable(window: ToolWindow): boolean {
  return window.error !== null && window.error.code !== 'content_changed';
}

/** The window as the tools' structured answers report it (content_window). */
export function toolWindowFieldsOf(window: ToolWindow) {
  return { ...windowFieldsOf(window), ...(window.tokens ?? {}), error: window.error };
}

/** One sentence on which part of the text this is and how to read on: `again` names the call, `cost` what asking again costs. */
export function describeToolWindow(window: ToolWindow, again: string, cost: string): string {
  const changed = window.error?.code === 'content_changed' ? `${window.error.message} ` : '';
  if (unreadable(window)) return `No content: ${window.error!.code}. ${window.error!.message}`;
  if (!window.tokens) return changed + describeWindow(window, `${again} and offset={next} for the next part ${cost}.`);
  const { tokenizer, tokens, total_tokens, cursor } = window.tokens;
  if (!window.truncated && window.offset === 0) return `${changed}Complete: all ${total_tokens} tokens (${tokenizer}).`;
  const shown = `${changed}${tokens} tokens (${tokenizer}), characters ${window.offset}–${window.end} of ${window.total_chars}, of ${total_tokens} tokens in all`;
  return cursor ? `${shown} (truncated). ${again} and cursor="${cursor}" for the next window ${cost}.` : `${shown}: the last window.`;
}

/** One text's share of a budget several texts share (the pages crawl_status shows, the diffs monitor_changes shows). */
export type ShareAsked = { by: 'tokens'; tokens: number; tokenizer: ContentWindow['tokenizer'] } | { by: 'chars'; chars: number };

/** The share of each of `parts` texts: of max_tokens when given (counted with `tokenizer`), else of max_chars or `defaultChars`. */
export function shareOf(
  args: Pick<WindowArguments, 'max_chars' | 'max_tokens' | 'tokenizer'>,
  parts: number,
  defaultChars = DEFAULT_MAX_CHARS,
): ShareAsked {
  const n = Math.max(1, parts);
  if (args.max_tokens !== undefined)
    return {
      by: 'tokens',
      tokens: Math.max(MIN_MAX_TOKENS, Math.floor(args.max_tokens / n)),
      tokenizer: args.tokenizer ?? DEFAULT_TOKENIZER,
    };
  return { by: 'chars', chars: Math.max(MIN_CHARS, Math.floor((args.max_chars ?? defaultChars) / n)) };
}

/** The text cut to its share (whole paragraphs, lines, then words), with a note of where and of how much when cut. */
export async function cutToShare(text: string, share: ShareAsked): Promise<string> {
  if (share.by === 'chars') {
    const window = textWindowOf(text, 0, share.chars);
    return window.truncated ? `${window.text}\n[cut at ${window.end} of ${window.total_chars} characters]` : window.text;
  }
  const window = await tokenWindowOf(text, { maxTokens: share.tokens, tokenizer: share.tokenizer });
  return window.truncated ? `${window.text}\n[cut at ${window.tokens} of ${window.total_tokens} tokens (${share.tokenizer})]` : window.text;
}

/** max_tokens beside max_chars or offset: one budget or the other (every tool with a budget asks this one rule). */
export function conflictingBudgets(args: Pick<WindowArguments, 'max_chars' | 'max_tokens' | 'offset'>): ValidationProblem[] {
  return args.max_tokens !== undefined && (args.max_chars !== undefined || args.offset !== undefined)
    ? [
        {
          loc: ['arguments', 'max_tokens'],
          msg: 'Count by tokens (max_tokens, cursor) or by characters (max_chars, offset), not both.',
          type: 'conflicting_windows',
        },
      ]
    : [];
}
