import type { MonitorPageDirectives, ScrapeRequest } from '@lib/contracts';
import { parse } from 'node-html-parser';
import { RE2 } from 're2-wasm';
import type { PageFormatter } from '../formats/page-formatter';

/**
 * Compiled ignore patterns, by source. re2-wasm keeps each expression in its own fixed wasm heap
 * and frees nothing on its own: compiled once per pattern (monitors repeat theirs every tick), the
 * heap holds the patterns in use rather than one copy per page compared.
 */
const COMPILED_PATTERNS = new Map<string, RE2>();
const COMPILED_PATTERNS_KEPT = 1000;

function compiled(pattern: string): RE2 {
  let expression = COMPILED_PATTERNS.get(pattern);
  if (!expression) {
    if (COMPILED_PATTERNS.size >= COMPILED_PATTERNS_KEPT) {
      for (const old of COMPILED_PATTERNS.values()) releaseExpression(old);
      COMPILED_PATTERNS.clear();
    }
    expression = new RE2(pattern, 'gu');
    COMPILED_PATTERNS.set(pattern, expression);
  }
  expression.lastIndex = 0;
  return expression;
}

/** Frees an expression's wasm memory (embind's delete on the wrapper re2-wasm does not expose). */
export function releaseExpression(expression: RE2): void {
  (expression as unknown as { wrapper?: { delete?: () => void } }).wrapper?.delete?.();
}

/**
 * The page as a monitor compares it (decision 0038): the markdown of its HTML without the elements
 * the ignore selectors match, with the text the ignore patterns (RE2: linear time, whatever a client
 * writes) match taken out; and the extraction as the scrape made it.
 */
export function comparableMarkdown(
  formatter: PageFormatter,
  request: Pick<ScrapeRequest, 'only_main_content' | 'include_images' | 'browser'>,
  html: string,
  url: string,
  ignore: MonitorPageDirectives['ignore'],
): string {
  let cleaned = html;
  if (ignore.selectors.length > 0) {
    const root = parse(html, { comment: false });
    for (const selector of ignore.selectors) for (const element of root.querySelectorAll(selector)) element.remove();
    cleaned = root.toString();
  }
  const formatted = formatter.format(
    {
      format: 'markdown',
      extract: null,
      only_main_content: request.only_main_content,
      include_images: request.include_images,
      include_metadata: false,
    },
    cleaned,
    url,
    { scriptsRan: request.browser },
  );
  let markdown = formatted.markdown ?? '';
  for (const pattern of ignore.patterns) markdown = compiled(pattern).replace(markdown, '');
  return markdown;
}
