import type { MonitorPageDirectives, ScrapeRequest } from '@lib/contracts';
import { parse } from 'node-html-parser';
import { clientPattern } from '@lib/client-patterns';
import type { PageFormatter } from '../formats/page-formatter';

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
  return withoutIgnoredText(formatted.markdown ?? '', ignore.patterns);
}

/** Markdown without the text the ignore patterns match: a document's, or a page's once formatted. */
export function withoutIgnoredText(markdown: string, patterns: MonitorPageDirectives['ignore']['patterns']): string {
  let kept = markdown;
  for (const pattern of patterns) kept = clientPattern(pattern, 'gu').replace(kept, '');
  return kept;
}
