import { type HTMLElement, type Node, NodeType, parse } from 'node-html-parser';
import { documentBaseUrl } from './absolute-urls';
import { alignRawText } from './raw-text-boundaries';

// <pre> is parsed as markup (its <code>, <b>, <br> are elements); script, style and noscript stay raw text.
// title and textarea are RCDATA: their text is never markup (`<` in a title is a character), and entities still decode.
export const PARSE_OPTIONS = {
  comment: false,
  blockTextElements: { script: true, noscript: true, style: true, title: true, textarea: true },
};

/**
 * One HTML page parsed once, on first use, and shared by everything that reads it in one scrape
 * (selector extraction, markdown, metadata). Raw-text elements are first aligned with where a
 * browser ends them (see alignRawText), so the tree holds the page a browser would show.
 */
export class ParsedPage {
  private aligned: string | null = null;
  private parsed: HTMLElement | null = null;
  private base: string | null = null;

  constructor(
    readonly html: string,
    readonly url: string,
  ) {}

  /** The page with its raw-text elements ending where a browser ends them; every parse of this page reads this. */
  get alignedHtml(): string {
    return (this.aligned ??= alignRawText(this.html));
  }

  get root(): HTMLElement {
    return (this.parsed ??= parse(this.alignedHtml, PARSE_OPTIONS));
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

/**
 * node-html-parser's textContent and querySelector recurse once per level, so a page nested
 * tens of thousands of elements deep overflows the stack. Everything that reads a whole subtree
 * here walks it with an explicit stack instead.
 */
export function textOf(node: Node): string {
  const parts: string[] = [];
  const stack: Node[] = [node];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (current.nodeType === NodeType.TEXT_NODE) parts.push(current.text);
    else for (let i = current.childNodes.length - 1; i >= 0; i -= 1) stack.push(current.childNodes[i]);
  }
  return parts.join('');
}

/** Every element under `root` in document order, without recursion. */
export function* elementsOf(root: HTMLElement): Generator<HTMLElement> {
  const stack: Node[] = [...root.childNodes].reverse();
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (current.nodeType !== NodeType.ELEMENT_NODE) continue;
    yield current as HTMLElement;
    for (let i = current.childNodes.length - 1; i >= 0; i -= 1) stack.push(current.childNodes[i]);
  }
}

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
