import { Readability } from '@mozilla/readability';
import { importEsm } from '@lib/runtime';
import { type HTMLElement, type Node, NodeType, parse } from 'node-html-parser';
import { PARSE_OPTIONS, type ParsedPage } from './parsed-page';

type ParseHtml = (html: string) => { document: unknown };

// Readability walks the whole DOM several times; past these bounds the whole page is converted instead.
const MAX_ELEMENTS = 60_000;
const MAX_DEPTH = 256;

/**
 * The page's main article, as Mozilla's Readability (Firefox's reader view) finds it: navigation,
 * headers, footers, cookie banners, sidebars, ads and comment sections dropped. Readability needs a
 * DOM that it may rewrite, which node-html-parser is not, so this is the one place a page is parsed
 * a second time (linkedom, the fastest DOM we measured for it); only requests that ask for main
 * content pay for it. null when the page has no article to speak of.
 */
export class MainContentReader {
  private constructor(private readonly parseHTML: ParseHtml) {}

  /** linkedom is an ES module (its selector engine is ESM-only): loaded once, before the first request. */
  static async load(): Promise<MainContentReader> {
    const linkedom = await importEsm<{ parseHTML: ParseHtml }>('linkedom');
    return new MainContentReader(linkedom.parseHTML);
  }

  read(page: ParsedPage): { root: HTMLElement; baseUrl: string } | null {
    // Readability's passes cost elements × depth: a pathological page is converted whole instead of stalling the process.
    if (!withinBounds(page.root)) return null;
    try {
      const { document } = this.parseHTML(page.alignedHtml);
      const article = new Readability(document as unknown as Document, { keepClasses: true }).parse();
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

/** The page's element count and nesting depth within Readability's bounds, measured without recursion. */
function withinBounds(root: HTMLElement): boolean {
  let elements = 0;
  const stack: Array<[Node, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node.nodeType !== NodeType.ELEMENT_NODE) continue;
    elements += 1;
    if (elements > MAX_ELEMENTS || depth > MAX_DEPTH) return false;
    for (const child of node.childNodes) stack.push([child, depth + 1]);
  }
  return true;
}
