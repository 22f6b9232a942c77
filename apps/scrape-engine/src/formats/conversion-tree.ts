import { type HTMLElement as ParsedElement, type Node as ParsedNode, NodeType, type TextNode } from 'node-html-parser';
import { absoluteUrl } from './absolute-urls';
import { textOf } from './parsed-page';

/**
 * The page as turndown walks it, built from the one node-html-parser parse of the page (no
 * serialise-and-reparse through turndown's own parser). It implements exactly the DOM surface
 * turndown and our rules read — node types and names, children and siblings, attributes,
 * textContent, removeChild — and nothing that would let page content reach the output unseen:
 * scripts, styles, templates, frames, hidden elements and comments never enter the tree.
 *
 * textContent is cached per element: turndown asks for it on every element (blank and
 * whitespace checks), which on a DOM costs a subtree walk each time.
 */
export abstract class TreeNode {
  parentNode: ElementNode | null = null;
  previousSibling: TreeNode | null = null;
  nextSibling: TreeNode | null = null;
  abstract readonly nodeType: 1 | 3;
  abstract readonly nodeName: string;
  abstract readonly textContent: string;
  // Set by turndown while it walks the tree.
  isBlock?: boolean;
  isCode?: boolean;
  isBlank?: boolean;
  flankingWhitespace?: { leading: string; trailing: string };
}

export class TextLeaf extends TreeNode {
  readonly nodeType = 3 as const;
  readonly nodeName = '#text';
  constructor(private value: string) {
    super();
  }
  get data(): string {
    return this.value;
  }
  set data(value: string) {
    this.value = value;
    this.parentNode?.forgetText();
  }
  get nodeValue(): string {
    return this.value;
  }
  get textContent(): string {
    return this.value;
  }
}

export class ElementNode extends TreeNode {
  readonly nodeType = 1 as const;
  firstChild: TreeNode | null = null;
  lastChild: TreeNode | null = null;
  private childArray: TreeNode[] | null = [];
  private text: string | null = null;
  /** What the table rules leave on a cell: its markdown, on one line. */
  cellMarkdown?: string;

  constructor(
    readonly nodeName: string,
    private readonly attributes: Readonly<Record<string, string>>,
  ) {
    super();
  }

  get childNodes(): TreeNode[] {
    if (this.childArray) return this.childArray;
    const nodes: TreeNode[] = [];
    for (let n = this.firstChild; n; n = n.nextSibling) nodes.push(n);
    return (this.childArray = nodes);
  }

  get children(): ElementNode[] {
    return this.childNodes.filter((n): n is ElementNode => n instanceof ElementNode);
  }

  get lastElementChild(): ElementNode | null {
    for (let n = this.lastChild; n; n = n.previousSibling) if (n instanceof ElementNode) return n;
    return null;
  }

  get textContent(): string {
    if (this.text !== null) return this.text;
    let text = '';
    for (let n = this.firstChild; n; n = n.nextSibling) text += n.textContent;
    return (this.text = text);
  }

  /** Never serialised back to HTML: turndown's "keep" path would put raw tags in the markdown. */
  get outerHTML(): string {
    return this.textContent;
  }

  getAttribute(name: string): string | null {
    return this.attributes[name] ?? null;
  }

  /**
   * The first descendant named `name`, as a list of at most one: turndown (and our rules) only ask
   * whether there is any, for every blank element, so the walk stops at the first match.
   */
  getElementsByTagName(name: string): ElementNode[] {
    const wanted = name.toUpperCase();
    const stack: TreeNode[] = [];
    for (let n = this.lastChild; n; n = n.previousSibling) stack.push(n);
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (!(n instanceof ElementNode)) continue;
      if (n.nodeName === wanted) return [n];
      for (let c = n.lastChild; c; c = c.previousSibling) stack.push(c);
    }
    return [];
  }

  appendChild(node: TreeNode): void {
    node.parentNode = this;
    node.previousSibling = this.lastChild;
    node.nextSibling = null;
    if (this.lastChild) this.lastChild.nextSibling = node;
    else this.firstChild = node;
    this.lastChild = node;
    this.childArray = null;
    this.forgetText();
  }

  removeChild(node: TreeNode): TreeNode {
    if (node.previousSibling) node.previousSibling.nextSibling = node.nextSibling;
    else this.firstChild = node.nextSibling;
    if (node.nextSibling) node.nextSibling.previousSibling = node.previousSibling;
    else this.lastChild = node.previousSibling;
    node.parentNode = node.previousSibling = node.nextSibling = null;
    this.childArray = null;
    this.forgetText();
    return node;
  }

  /** turndown clones its input before collapsing whitespace; the tree is built per conversion, so it is its own clone. */
  cloneNode(): this {
    return this;
  }

  forgetText(): void {
    if (this.text === null) return;
    this.text = null;
    for (let el = this.parentNode; el && el.text !== null; el = el.parentNode) el.text = null;
  }
}

export interface TreeOptions {
  /** Absolute base for links and images (the page URL or its <base href>). */
  baseUrl: string;
  /** Images as `![alt](url)`, or left out. */
  includeImages: boolean;
  /** Elements left out with their subtrees, and text left out (what main content found to be boilerplate). */
  skip?: ReadonlySet<ParsedNode>;
}

// Never rendered as text by a browser, or not page content at all.
const DROPPED = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'HEAD',
  'TITLE',
  'META',
  'LINK',
  'BASE',
  'IFRAME',
  'FRAME',
  'FRAMESET',
  'OBJECT',
  'EMBED',
  'SVG',
  'CANVAS',
  'SELECT',
  'DATALIST',
  'DIALOG',
  'AUDIO',
  'VIDEO',
  'MAP',
  'PARAM',
  'SOURCE',
  'TRACK',
]);
// Where an element sits deeper than this, its subtree is kept as text: turndown recurses per level.
const MAX_DEPTH = 256;
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important)?\s*(?:;|$)/i;
const LAZY_IMAGE_SOURCES = ['data-src', 'data-original', 'data-lazy-src', 'data-url'];

/** The conversion tree of a parsed element's content (the element itself becomes the root). */
export function conversionTreeOf(root: ParsedElement, options: TreeOptions): ElementNode {
  const tree = new ElementNode('X-ROOT', {});
  appendChildren(tree, root, options, 0, false);
  return tree;
}

function appendChildren(target: ElementNode, source: ParsedElement, options: TreeOptions, depth: number, inPre: boolean): void {
  for (const child of source.childNodes) {
    if (child.nodeType === NodeType.TEXT_NODE) {
      if (options.skip?.has(child)) continue;
      // Entity decoding only where there is an entity (most text nodes have none).
      const raw = (child as TextNode).rawText;
      const text = raw.includes('&') ? (child as TextNode).text : raw;
      if (text) appendText(target, text);
    } else if (child.nodeType === NodeType.ELEMENT_NODE) {
      appendElement(target, child as ParsedElement, options, depth + 1, inPre);
    }
  }
}

function appendElement(target: ElementNode, source: ParsedElement, options: TreeOptions, depth: number, inPre: boolean): void {
  const name = elementName(source.rawTagName ?? '');
  if (DROPPED.has(name) || isHidden(source) || options.skip?.has(source)) return;
  if (depth > MAX_DEPTH) {
    const text = textOf(source);
    if (text.trim()) appendText(target, ` ${text} `);
    return;
  }
  if (name === 'BR' && inPre) return appendText(target, '\n');
  if (name === 'IMG') return appendImage(target, source, options);
  const el = new ElementNode(name, attributesOf(source, name, options));
  target.appendChild(el);
  appendChildren(el, source, options, depth, inPre || name === 'PRE');
}

/** Text joins the text before it (what a dropped element leaves between two texts is one run of text). */
function appendText(target: ElementNode, text: string): void {
  const last = target.lastChild;
  if (last instanceof TextLeaf) last.data += text;
  else target.appendChild(new TextLeaf(text));
}

function appendImage(target: ElementNode, source: ParsedElement, options: TreeOptions): void {
  if (!options.includeImages) return;
  const alt = source.getAttribute('alt')?.trim() ?? '';
  const src = imageSource(source);
  // An inline data: image is kilobytes of base64 and nothing a reader can follow: its alt text stands in.
  if (!src || src.startsWith('data:')) {
    if (alt) appendText(target, ` ${alt} `);
    return;
  }
  target.appendChild(new ElementNode('IMG', { src: absoluteUrl(src, options.baseUrl), alt }));
}

/** The image's real address: lazy-loading pages put a placeholder in src and the image in data-src or srcset. */
function imageSource(source: ParsedElement): string {
  const src = source.getAttribute('src')?.trim() ?? '';
  if (src && !src.startsWith('data:')) return src;
  for (const attribute of LAZY_IMAGE_SOURCES) {
    const value = source.getAttribute(attribute)?.trim();
    if (value && !value.startsWith('data:')) return value;
  }
  const srcset = (source.getAttribute('srcset') ?? source.getAttribute('data-srcset'))?.trim();
  const first = srcset?.split(',')[0]?.trim().split(/\s+/)[0];
  return first && !first.startsWith('data:') ? first : src;
}

function attributesOf(source: ParsedElement, name: string, options: TreeOptions): Record<string, string> {
  const keep = KEPT_ATTRIBUTES[name];
  if (!keep) return NO_ATTRIBUTES;
  const attributes: Record<string, string> = {};
  for (const attribute of keep) {
    const value = source.getAttribute(attribute);
    if (value !== undefined) attributes[attribute] = attribute === 'href' ? absoluteUrl(value, options.baseUrl) : value;
  }
  return attributes;
}

const NO_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;

// Only what the rules read is copied into the tree.
const KEPT_ATTRIBUTES: Record<string, string[]> = {
  A: ['href'],
  OL: ['start'],
  INPUT: ['type', 'checked'],
  TD: ['colspan', 'rowspan'],
  TH: ['colspan', 'rowspan'],
  TABLE: ['role'],
  PRE: ['class', 'data-lang', 'lang'],
  CODE: ['class', 'data-lang'],
};

// turndown tests an element's kind with Array#indexOf over its tag lists, once or more per element: names
// that are the same string object as those lists' literals compare by pointer, not character by character.
// Property keys are internalized strings, so a name read back from an object's keys is that object.
const INTERNED_NAMES = new Map<string, string>(
  Object.keys(
    Object.fromEntries(
      (
        'A ABBR ADDRESS ARTICLE ASIDE AUDIO B BLOCKQUOTE BODY BR CANVAS CAPTION CENTER CITE CODE COL DD DEL DETAILS DFN DIR DIV DL DT EM ' +
        'FIELDSET FIGCAPTION FIGURE FOOTER FORM H1 H2 H3 H4 H5 H6 HEADER HGROUP HR HTML I IFRAME IMG INPUT INS KBD LABEL LI MAIN MARK ' +
        'MENU NAV OL OUTPUT P PRE Q S SAMP SECTION SMALL SPAN STRIKE STRONG SUB SUMMARY SUP TABLE TBODY TD TFOOT TH THEAD TIME TR U UL VAR'
      )
        .split(' ')
        .map((name) => [name, true]),
    ),
  ).map((name) => [name, name]),
);

function elementName(rawTagName: string): string {
  const upper = rawTagName.toUpperCase();
  return INTERNED_NAMES.get(upper) ?? upper;
}

/** Elements never rendered as text (script, style, svg, …), by lower-case tag name: main content measures as the conversion reads. */
export function isDroppedElement(tag: string): boolean {
  return DROPPED.has(elementName(tag));
}

export function isHiddenElement(source: ParsedElement): boolean {
  return isHidden(source);
}

function isHidden(source: ParsedElement): boolean {
  const raw = source.rawAttrs;
  if (!raw) return false;
  if (!raw.includes('hidden') && !raw.includes('none')) return false;
  if (source.hasAttribute('hidden')) return true;
  if (source.getAttribute('aria-hidden') === 'true') return true;
  const style = source.getAttribute('style');
  return style !== undefined && HIDDEN_STYLE.test(style);
}
