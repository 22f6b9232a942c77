import { type HTMLElement, NodeType, parse } from 'node-html-parser';
import { documentBaseUrl } from './absolute-urls';
import { locateContent, withNoscriptAsMarkup } from '@lib/page-evidence';
import { alignRawText } from './raw-text-boundaries';
import { flattenShadowRoots, mayHoldShadowRoots } from './shadow-roots';
import { finishUnscriptedPage } from './unscripted-page';

// <pre> is parsed as markup (its <code>, <b>, <br> are elements); script, style and noscript stay raw text.
// title and textarea are RCDATA: their text is never markup (`<` in a title is a character), and entities still decode.
// Unclosed and mis-nested elements are recovered as a browser does: an element left open is closed
// by the end of its parent, and a closing tag closes every element opened inside the one it names.
// node-html-parser's default instead drops the unclosed element and lifts its children — the
// <body> included when a <div> in it is never closed (193 of WCXB's 1,497 real pages had no body).
export const PARSE_OPTIONS = {
  comment: false,
  parseNoneClosedTags: true,
  closeAllByClosing: true,
  blockTextElements: { script: true, noscript: true, style: true, title: true, textarea: true },
};

/**
 * One HTML page parsed once, on first use, and shared by everything that reads it in one scrape
 * (selector extraction, markdown, metadata). Raw-text elements are first aligned with where a
 * browser ends them (see alignRawText), so the tree holds the page a browser would show. A page
 * whose scripts did not run (simple mode) is read as a client without JavaScript is served it:
 * its noscript content as markup where that is how it serves such clients, and its streamed or
 * hidden-until-scripted content where the scripts would put it (see finishUnscriptedPage).
 */
export class ParsedPage {
  private aligned: string | null = null;
  private parsed: HTMLElement | null = null;
  private base: string | null = null;

  constructor(
    readonly html: string,
    readonly url: string,
    private readonly options: { scriptsRan: boolean } = { scriptsRan: true },
  ) {}

  /** The page with its raw-text elements ending where a browser ends them; every parse of this page reads this. */
  get alignedHtml(): string {
    if (this.aligned === null) this.prepare();
    return this.aligned!;
  }

  get root(): HTMLElement {
    if (this.aligned === null) this.prepare();
    return (this.parsed ??= parse(this.aligned!, PARSE_OPTIONS));
  }

  private prepare(): void {
    if (this.options.scriptsRan) {
      this.aligned = alignRawText(this.html);
      // Shadow trees written into the HTML (declarative, or serialised by browser mode) are read as rendered.
      if (mayHoldShadowRoots(this.aligned)) {
        const root = parse(this.aligned, PARSE_OPTIONS);
        if (flattenShadowRoots(root)) this.aligned = root.toString();
        this.parsed = root;
      }
      return;
    }
    const servesNoscript = /<noscript/i.test(this.html) && locateContent(this.html).noscriptIsContent;
    this.aligned = alignRawText(servesNoscript ? withNoscriptAsMarkup(this.html) : this.html);
    const root = parse(this.aligned, PARSE_OPTIONS);
    // Declarative shadow DOM renders without scripts; streamed and hidden-until-scripted content is placed as scripts would.
    const flattened = mayHoldShadowRoots(this.aligned) && flattenShadowRoots(root);
    // Changed: every later parse (main content's) reads the finished page.
    if (finishUnscriptedPage(shallowFind(root, 'body') ?? root) || flattened) this.aligned = root.toString();
    this.parsed = root;
  }

  /** The <body>, or the whole document when the page has none (a fragment). */
  get body(): HTMLElement {
    return shallowFind(this.root, 'body') ?? this.root;
  }

  /** The <head>, if the page has one where pages put it. */
  get head(): HTMLElement | null {
    return shallowFind(this.root, 'head');
  }

  /** What the page's relative URLs resolve against: its <base href>, else its own URL. */
  get baseUrl(): string {
    return (this.base ??= documentBaseUrl(this.head ?? this.root, this.url));
  }
}

export { elementsOf, textOf } from './tree-walk';

/** <html>, <head> and <body> sit within the document's first levels. */
function shallowFind(root: HTMLElement, tag: string): HTMLElement | null {
  let level: HTMLElement[] = [root];
  for (let depth = 0; depth < 3 && level.length > 0; depth += 1) {
    const next: HTMLElement[] = [];
    for (const el of level) {
      for (const child of el.childNodes) {
        if (child.nodeType !== NodeType.ELEMENT_NODE) continue;
        const element = child as HTMLElement;
        if (element.rawTagName?.toLowerCase() === tag) return element;
        next.push(element);
      }
    }
    level = next;
  }
  return null;
}
