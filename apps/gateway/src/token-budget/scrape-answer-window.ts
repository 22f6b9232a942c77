import {
  type ContentWindow,
  type ContentWindowError,
  type ScrapeResultBody,
  SITE_REFUSAL_ERROR_TYPES,
  type WindowedScrapeRequest,
} from '@lib/contracts';
import { RequestValidationError } from '../gateway.errors';
import { DEFAULT_TOKENIZER, type TokenizerName } from './token-count';
import { type CursorState, InvalidCursor, offsetIn, parseCursor, StaleCursor, tokenWindowOf } from './token-window';

/** A windowed scrape's budget, read before anything is fetched (a cursor that is not one costs nothing). */
export interface ContentBudget {
  maxTokens: number;
  tokenizer: TokenizerName;
  cursor: CursorState | null;
}

/** The request's budget, or null without max_tokens; a malformed cursor is a 422 at its field. */
export function contentBudgetOf(
  request: Pick<WindowedScrapeRequest, 'max_tokens' | 'cursor' | 'tokenizer'>,
  loc: string[] = ['body'],
): ContentBudget | null {
  const tokenizer = request.tokenizer ?? DEFAULT_TOKENIZER;
  if (request.max_tokens === undefined) {
    if (request.cursor !== undefined)
      throw new RequestValidationError([
        {
          loc: [...loc, 'cursor'],
          msg: 'A cursor reads the next window of a max_tokens answer: send max_tokens too.',
          type: 'missing_max_tokens',
        },
      ]);
    return null;
  }
  try {
    return { maxTokens: request.max_tokens, tokenizer, cursor: request.cursor ? parseCursor(request.cursor, tokenizer) : null };
  } catch (error) {
    if (error instanceof InvalidCursor)
      throw new RequestValidationError([{ loc: [...loc, 'cursor'], msg: error.message, type: 'invalid_cursor' }]);
    throw error;
  }
}

/**
 * The answer cut to its budget: the content field the format names (markdown or html) holds the
 * window and content_window says which part it is. Nothing to read is a typed reason with null
 * content, never an empty string; a cursor from content that has changed since starts the window
 * again from the beginning and says so.
 */
/** The content field the format names: the text a budget, a window or a reader is about. */
export function contentOf(result: Pick<ScrapeResultBody, 'markdown' | 'html'>, format: 'html' | 'markdown'): string | null {
  return format === 'markdown' ? result.markdown : result.html;
}

export async function windowedAnswer(
  result: ScrapeResultBody,
  format: 'html' | 'markdown',
  budget: ContentBudget,
): Promise<ScrapeResultBody> {
  const text = contentOf(result, format) ?? '';
  const empty = emptyReasonOf(result, text);
  if (empty) {
    const window: ContentWindow = {
      tokenizer: budget.tokenizer,
      tokens: 0,
      total_tokens: 0,
      offset: 0,
      end: 0,
      total_chars: 0,
      truncated: false,
      cursor: null,
      error: empty,
    };
    return { ...result, [format]: null, content_window: window };
  }
  let offset = 0;
  let error: ContentWindowError | null = null;
  if (budget.cursor) {
    try {
      offset = offsetIn(budget.cursor, text);
    } catch (stale) {
      if (!(stale instanceof StaleCursor)) throw stale;
      error = { code: 'content_changed', message: stale.message };
    }
  }
  const { text: part, ...window } = await tokenWindowOf(text, { maxTokens: budget.maxTokens, tokenizer: budget.tokenizer, offset });
  return { ...result, [format]: part, content_window: { ...window, error } };
}

// The site's refusals, and an address the SSRF guard refused (nothing was read either way).
const BLOCK_TYPES = new Set<string>([...SITE_REFUSAL_ERROR_TYPES, 'target_blocked']);

/** Why an answer has nothing to read (its text is empty), or null when it has text. */
export function emptyReasonOf(result: ScrapeResultBody, text: string): ContentWindowError | null {
  if (text.trim().length > 0) return null;
  if (result.body_base64)
    return {
      code: 'unsupported_content_type',
      message: `The target answered ${result.content_type ?? 'a binary body'}, which has no text to read here: fetch it with /v1/sync/download, or convert a document with /v1/documents/convert.`,
    };
  return (
    blockOf(result) ?? {
      code: 'empty_content',
      message: `The page (status ${result.statusCode}) has no text content in this format${result.statusCode === 0 ? ': the site never answered' : ''}.`,
    }
  );
}

/** The site's block, when guidance found one (what the text holds then is the block page). */
export function blockOf(result: ScrapeResultBody): ContentWindowError | null {
  if (BLOCK_TYPES.has(result.guidance?.error_type ?? '') || result.potentiallyBlockedByCaptcha)
    return {
      code: 'blocked',
      message: `The site blocked the request (${result.guidance?.error_type ?? 'a captcha'}, status ${result.statusCode}): guidance.next_steps says what to try.`,
    };
  return null;
}
