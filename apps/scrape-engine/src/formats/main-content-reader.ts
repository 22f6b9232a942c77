import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { HTMLElement, parse } from 'node-html-parser';
import { PARSE_OPTIONS, ParsedPage } from './parsed-page';
import { alignRawText } from './raw-text-boundaries';

// Readability walks the whole DOM several times; past this many elements it stops (and we convert the whole page).
const MAX_ELEMENTS = 60_000;

/**
 * The page's main article, as Mozilla's Readability (Firefox's reader view) finds it: navigation,
 * headers, footers, cookie banners, sidebars, ads and comment sections dropped. Readability needs a
 * DOM that it may rewrite, which node-html-parser is not, so this is the one place a page is parsed
 * a second time (linkedom, the fastest DOM we measured for it); only requests that ask for main
 * content pay for it. null when the page has no article to speak of.
 */
export class MainContentReader {
  read(page: ParsedPage): { root: HTMLElement; baseUrl: string } | null {
    try {
      const { document } = parseHTML(alignRawText(page.html));
      const article = new Readability(document as unknown as Document, { maxElemsToParse: MAX_ELEMENTS, keepClasses: true }).parse();
      if (!article?.content || !article.textContent?.trim()) return null;
      // The article's title heads it, unless the article already has its own <h1>.
      const heading = article.title && !/<h1[\s>]/i.test(article.content) ? `<h1>${escapeHtml(article.title)}</h1>` : '';
      return { root: parse(heading + article.content, PARSE_OPTIONS), baseUrl: page.baseUrl };
    } catch {
      return null;
    }
  }
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
