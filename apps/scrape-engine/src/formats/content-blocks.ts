import { type HTMLElement, type Node, NodeType, type TextNode } from 'node-html-parser';
import { isDroppedElement, isHiddenElement } from './conversion-tree';
import { type LocatedContent, PAGE_KINDS } from './main-content-locator';

/**
 * A page cut into the blocks a reader sees — each element's own run of inline content (its text
 * and inline children), so a paragraph, a heading, a list item and a table cell are blocks of their
 * own and a <div> holding loose text beside its paragraphs is one too — with, for each block, the
 * evidence the main-content model weighs (decision 0041). The same code describes a page at
 * training time (scripts/train-main-content) and at run time, so the model reads at run time
 * exactly the numbers it was trained on.
 */
export interface ContentBlock {
  /** The element whose own inline content the block is. */
  element: HTMLElement;
  /** That content: text nodes and inline elements, in order (what leaving the block out skips). */
  nodes: Node[];
  text: string;
  /** In BLOCK_FEATURES' order. */
  features: Float64Array;
  /**
   * The block's list: blocks whose elements are siblings of one tag and class (items of a list, a
   * grid's cards, a row's cells), numbered from 0 where there are at least LIST_ITEMS of them; -1 elsewhere.
   */
  list: number;
}

/** Siblings of one tag and class that make a list whose items stand or fall together. */
export const LIST_ITEMS = 3;

const INLINE = new Set(
  (
    'a abbr b bdi bdo br cite code data del dfn em font i img input ins kbd label mark q s samp small span strike strong sub sup ' +
    'time tt u var wbr button select textarea output meter progress nobr big'
  ).split(' '),
);
const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const BLOCK_TAGS = ['p', 'li', 'td', 'th', 'pre', 'blockquote', 'dd', 'dt', 'figcaption', 'div', 'section', 'article', 'span', 'a'];
/** Ancestor elements whose presence is evidence, one bit each. */
const ANCESTOR_TAGS = [
  'nav',
  'header',
  'footer',
  'aside',
  'article',
  'main',
  'form',
  'li',
  'table',
  'a',
  'button',
  'section',
  'figure',
  'blockquote',
  'dialog',
  'menu',
  'h1',
  'ul',
  'ol',
  'label',
] as const;
const ANCESTOR_BIT = new Map<string, number>(ANCESTOR_TAGS.map((tag, i) => [tag, 1 << i]));
/** Words in class and id attributes, by what they name; an ancestor naming one sets its bit. */
const NAMING_WORDS: Array<[string, RegExp]> = [
  ['nav', /^(?:nav|navbar|navigation|menu|menubar|menus|breadcrumbs?|crumbs?|pagination|pager|toc|skip|megamenu|dropdown)$/],
  ['header', /^(?:header|masthead|topbar|top|branding|logo|site)$/],
  ['footer', /^(?:footer|foot|copyright|colophon|bottom|legal)$/],
  ['sidebar', /^(?:sidebar|aside|rail|widgets?|secondary|col|column)$/],
  ['comments', /^(?:comments?|replies|reply|disqus|respond|discussion)$/],
  ['share', /^(?:share|sharing|social|follow|sns|addthis|sharethis)$/],
  ['related', /^(?:related|recommended|recommendations|popular|trending|suggested|similar|more|also|recirc|teaser|teasers)$/],
  ['ad', /^(?:ad|ads|advert|adverts|advertisement|sponsor|sponsored|promo|promotion|dfp|gpt|adsbygoogle|banner)$/],
  ['overlay', /^(?:cookie|cookies|consent|gdpr|modal|popup|newsletter|subscribe|signup|login|overlay|lightbox)$/],
  ['content', /^(?:content|article|post|entry|body|main|text|story|prose|markdown|richtext|rte|copy|blog)$/],
  ['product', /^(?:product|products|description|details|specs|specifications|price|buy|cart|gallery|sku|pdp|variant)$/],
  ['meta', /^(?:meta|byline|author|date|time|tags?|category|categories|published|updated|dateline)$/],
  ['hidden', /^(?:hidden|hide|sronly|invisible|offscreen)$/],
  ['thread', /^(?:message|messages|thread|topic|answer|answers|question|forum|postbody|bbcode)$/],
  ['title', /^(?:title|headline|heading|h1|name)$/],
  ['card', /^(?:card|cards|tile|tiles|grid|item|items|list|listing|results?|teaser)$/],
];
const ITEMPROP_CONTENT = /^(?:articlebody|description|reviewbody|text|mainentity|mainentityofpage|acceptedanswer|suggestedanswer)$/;
const WORD_CHARACTER = /[\p{L}\p{N}_]/u;
const PUNCTUATION = new Set([...'.,;:!?。，、；：！？'].map((c) => c.charCodeAt(0)));
const SENTENCE_ENDS = new Set([...'.!?。！？'].map((c) => c.charCodeAt(0)));

interface Context {
  ancestors: number;
  naming: number;
  itemprop: boolean;
  itemtype: boolean;
  inRoot: boolean;
  inSkip: boolean;
  inA: boolean;
  heading: number;
  depth: number;
  /** Siblings of this element sharing its tag and class, and of its parent. */
  repeat: number;
  parentRepeat: number;
}

interface RawBlock {
  element: HTMLElement;
  nodes: Node[];
  text: string;
  linkText: number;
  links: number;
  images: number;
  context: Context;
  tag: string;
}

/** The features' names, in the order a block's feature vector holds them (the model file names them too). */
export const BLOCK_FEATURES: readonly string[] = [
  'chars_log',
  'words_log',
  'link_density',
  'links',
  'images',
  'punctuation_density',
  'sentences',
  'digit_share',
  'mean_word_length',
  ...BLOCK_TAGS.map((tag) => `tag_${tag}`),
  'heading_level',
  'depth',
  ...ANCESTOR_TAGS.map((tag) => `in_${tag}`),
  ...NAMING_WORDS.map(([name]) => `named_${name}`),
  'itemprop_content',
  'itemtype',
  'rules_in_root',
  'rules_skipped',
  'rules_kept',
  'rules_whole_page',
  'rules_confidence',
  'rules_root_share',
  ...PAGE_KINDS.map((kind) => `kind_${kind}`),
  'position',
  'position_index',
  'after_h1',
  'from_h1',
  'prev_chars_log',
  'prev_link_density',
  'next_chars_log',
  'next_link_density',
  'window_link_density',
  'window_chars_log',
  'parent_share',
  'repeat_log',
  'parent_repeat_log',
  'same_text',
  'page_chars_log',
  'page_blocks_log',
  'page_link_density',
  ...PAGE_KINDS.map((kind) => `type_${kind}`),
];

/**
 * The page's blocks in document order, each with its features. `located` is what the rules found
 * (null when they found nothing to go by); `rulesFallback`: the rules would read the whole page.
 */
export function contentBlocksOf(
  body: HTMLElement,
  located: LocatedContent | null,
  rulesFallback: boolean,
  url: string,
  pageTypes: PageTypeReader | null,
): { blocks: ContentBlock[]; page: number[]; types: number[] } {
  const raw = segment(body, located);
  if (raw.length === 0) return { blocks: [], page: [], types: [] };
  const page = pageFeaturesOf(raw, located, rulesFallback, url);
  const types = pageTypes ? pageTypes(page) : PAGE_KINDS.map(() => 0);
  return { blocks: describe(raw, located, rulesFallback, types, listsOf(raw)), page, types };
}

/** The page's kind as a learned classifier reads it from the page's features: one probability per kind, in PAGE_KINDS order. */
export type PageTypeReader = (pageFeatures: readonly number[]) => number[];

const URL_WORDS: Array<[string, RegExp]> = [
  ['product', /^(?:p|product|products|item|items|dp|sku|buy|shop|store)$/],
  ['collection', /^(?:c|collections?|category|categories|catalog|catalogue|department|brands?|sale|shop-all)$/],
  ['listing', /^(?:blog|news|articles|posts|archive|archives|tag|tags|topics?|page|search|author|authors)$/],
  ['forum', /^(?:t|threads?|topics?|forums?|community|discussions?|questions|viewtopic|showthread|comments|r)$/],
  ['docs', /^(?:docs?|documentation|api|reference|manual|wiki|guide|guides|learn|developers?|kb|help|support)$/],
  ['service', /^(?:services?|solutions?|about|contact|pricing|features?|company|team|careers|plans)$/],
  ['article', /^(?:\d{4}|article|story|stories|post|news|blog)$/],
];

// The landmarks whose share of the page's text the page-type classifier reads, in feature order.
const PAGE_LANDMARKS = ['li', 'table', 'article', 'main', 'nav', 'header', 'footer', 'aside', 'form', 'a', 'h1'] as const;

/** The features' names of a page as the page-type classifier reads it. */
export const PAGE_FEATURES: readonly string[] = [
  'chars_log',
  'blocks_log',
  'link_density',
  'mean_block_chars_log',
  ...PAGE_LANDMARKS.map((tag) => `text_in_${tag}`),
  ...NAMING_WORDS.map(([name]) => `text_named_${name}`),
  'text_repeated',
  'text_in_sentences',
  'heading_blocks',
  'h1_blocks',
  'itemprop_share',
  'itemtype_share',
  'rules_confidence',
  'rules_root_share',
  'rules_whole_page',
  ...PAGE_KINDS.map((kind) => `rules_kind_${kind}`),
  'evidence_json_ld',
  'evidence_og',
  'evidence_generator',
  'evidence_url',
  'evidence_repeated',
  'url_depth',
  'url_query',
  'url_digits',
  ...URL_WORDS.map(([name]) => `url_${name}`),
];

function pageFeaturesOf(raw: RawBlock[], located: LocatedContent | null, rulesFallback: boolean, url: string): number[] {
  let total = 0;
  let links = 0;
  let repeated = 0;
  let sentences = 0;
  let headings = 0;
  let h1 = 0;
  let itemprop = 0;
  let itemtype = 0;
  const inTag = new Array<number>(PAGE_LANDMARKS.length).fill(0);
  const tagBits = PAGE_LANDMARKS.map((tag) => ANCESTOR_BIT.get(tag)!);
  const named = new Array<number>(NAMING_WORDS.length).fill(0);
  for (const b of raw) {
    const n = b.text.length;
    total += n;
    links += b.linkText;
    if (b.context.repeat >= 3 || b.context.parentRepeat >= 3) repeated += n;
    if (/[.!?。！？](?:\s|$)/.test(b.text) && b.linkText < n / 2) sentences += n;
    if (b.context.heading > 0) headings += 1;
    if (b.context.heading === 1) h1 += 1;
    if (b.context.itemprop) itemprop += n;
    if (b.context.itemtype) itemtype += n;
    tagBits.forEach((bit, i) => {
      if (b.context.ancestors & bit) inTag[i]! += n;
    });
    for (let i = 0; i < NAMING_WORDS.length; i += 1) if ((b.context.naming >> i) & 1) named[i]! += n;
  }
  const share = (n: number) => n / Math.max(1, total);
  const evidence = located?.kindEvidence ?? [];
  const count = (prefix: string) => evidence.filter((e) => e.startsWith(prefix)).length;
  let segments: string[] = [];
  let query = 0;
  try {
    const parsed = new URL(url);
    segments = parsed.pathname.toLowerCase().split('/').filter(Boolean);
    query = parsed.search.length > 1 ? 1 : 0;
  } catch {
    // No usable address: the page is read by its content alone.
  }
  const words = segments.flatMap((segment) => segment.split(/[^a-z0-9]+/).filter(Boolean));
  const kindIndex = located ? PAGE_KINDS.indexOf(located.kind) : -1;
  return [
    Math.log1p(total),
    Math.log1p(raw.length),
    share(links),
    Math.log1p(total / raw.length),
    ...inTag.map(share),
    ...named.map(share),
    share(repeated),
    share(sentences),
    headings / raw.length,
    h1,
    share(itemprop),
    share(itemtype),
    located?.confidence ?? 0,
    located && located.pageText > 0 ? located.text / located.pageText : 1,
    rulesFallback ? 1 : 0,
    ...PAGE_KINDS.map((_, k) => (k === kindIndex ? 1 : 0)),
    count('json-ld:'),
    count('og:'),
    count('generator:'),
    count('url:'),
    evidence.filter((e) => e.includes('×3')).length,
    segments.length,
    query,
    segments.some((segment) => /\d{3,}/.test(segment)) ? 1 : 0,
    ...URL_WORDS.map(([, pattern]) => (words.some((word) => pattern.test(word)) ? 1 : 0)),
  ];
}

function segment(body: HTMLElement, located: LocatedContent | null): RawBlock[] {
  const blockish = blockishElements(body);
  const blocks: RawBlock[] = [];
  const root = located?.root ?? body;
  const skip = located?.skip;
  interface Frame {
    element: HTMLElement;
    context: Context;
    index: number;
    run: Node[];
    signatures: Map<string, number>;
  }
  const frameOf = (element: HTMLElement, context: Context): Frame => {
    const signatures = new Map<string, number>();
    for (const child of element.childNodes)
      if (child.nodeType === NodeType.ELEMENT_NODE) {
        const signature = signatureOf(child as HTMLElement);
        signatures.set(signature, (signatures.get(signature) ?? 0) + 1);
      }
    return { element, context, index: 0, run: [], signatures };
  };
  const flush = (frame: Frame) => {
    if (frame.run.length === 0) return;
    const nodes = frame.run;
    frame.run = [];
    const measured = measureRun(nodes, frame.context.inA);
    if (!/[\p{L}\p{N}]/u.test(measured.text)) return;
    blocks.push({ element: frame.element, nodes, ...measured, context: frame.context, tag: frame.element.rawTagName?.toLowerCase() ?? '' });
  };
  const start: Context = {
    ancestors: 0,
    naming: namingBits(body),
    itemprop: false,
    itemtype: false,
    inRoot: root === body,
    inSkip: false,
    inA: false,
    heading: 0,
    depth: 0,
    repeat: 1,
    parentRepeat: 1,
  };
  const stack: Frame[] = [frameOf(body, start)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.index >= frame.element.childNodes.length) {
      flush(frame);
      stack.pop();
      continue;
    }
    const child = frame.element.childNodes[frame.index++]!;
    if (child.nodeType === NodeType.TEXT_NODE) {
      frame.run.push(child);
      continue;
    }
    if (child.nodeType !== NodeType.ELEMENT_NODE) continue;
    const element = child as HTMLElement;
    const tag = element.rawTagName?.toLowerCase() ?? '';
    if (isDroppedElement(tag) || isHiddenElement(element)) continue;
    if (!blockish.has(element)) {
      frame.run.push(element);
      continue;
    }
    flush(frame);
    stack.push(frameOf(element, childContext(frame.context, element, tag, frame.signatures, root, skip)));
  }
  return blocks;
}

function childContext(
  parent: Context,
  element: HTMLElement,
  tag: string,
  signatures: Map<string, number>,
  root: HTMLElement,
  skip: ReadonlySet<HTMLElement> | undefined,
): Context {
  const raw = element.rawAttrs;
  const itemprop = raw && raw.includes('itemprop') ? element.getAttribute('itemprop') : undefined;
  return {
    ancestors: parent.ancestors | (ANCESTOR_BIT.get(tag) ?? 0),
    naming: parent.naming | namingBits(element),
    itemprop: parent.itemprop || (itemprop !== undefined && ITEMPROP_CONTENT.test(itemprop.toLowerCase())),
    itemtype: parent.itemtype || (raw.includes('itemtype') && element.hasAttribute('itemtype')),
    inRoot: parent.inRoot || element === root,
    inSkip: parent.inSkip || (skip?.has(element) ?? false),
    inA: parent.inA || tag === 'a',
    heading: HEADINGS[tag] ?? parent.heading,
    depth: parent.depth + 1,
    repeat: signatures.get(signatureOf(element)) ?? 1,
    parentRepeat: parent.repeat,
  };
}

const NAMING_ATTRIBUTES = /(?:^|\s)(?:class|id)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi;
const CLASS_ATTRIBUTE = /(?:^|\s)class\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;

/** Tag and class as written: what makes siblings items of one list (read from the raw attributes, not a parse of them). */
function signatureOf(element: HTMLElement): string {
  const raw = element.rawAttrs;
  const match = raw && raw.includes('class') ? CLASS_ATTRIBUTE.exec(raw) : null;
  return `${element.rawTagName?.toLowerCase() ?? ''}.${match ? (match[1] ?? match[2] ?? match[3] ?? '') : ''}`;
}

function namingBits(element: HTMLElement): number {
  const raw = element.rawAttrs;
  if (!raw || (!raw.includes('class') && !raw.includes('id'))) return 0;
  // Items of a list or a grid repeat their attributes exactly: read once.
  const known = ATTRIBUTE_BITS.get(raw);
  if (known !== undefined) return known;
  const bits = namingBitsOfAttributes(raw);
  if (raw.length <= 200) {
    if (ATTRIBUTE_BITS.size >= WORD_BITS_LIMIT) ATTRIBUTE_BITS.clear();
    ATTRIBUTE_BITS.set(raw, bits);
  }
  return bits;
}

const ATTRIBUTE_BITS = new Map<string, number>();

function namingBitsOfAttributes(raw: string): number {
  let names = '';
  NAMING_ATTRIBUTES.lastIndex = 0;
  for (let match = NAMING_ATTRIBUTES.exec(raw); match; match = NAMING_ATTRIBUTES.exec(raw))
    names += ` ${match[1] ?? match[2] ?? match[3] ?? ''}`;
  names = names.toLowerCase();
  let bits = 0;
  for (const word of names.split(/[^a-z0-9]+/)) if (word) bits |= namingBitsOfWord(word);
  return bits;
}

// Sites reuse a few hundred class words on every element: each is matched against the word lists once.
const WORD_BITS = new Map<string, number>();
const WORD_BITS_LIMIT = 50_000;

function namingBitsOfWord(word: string): number {
  let bits = WORD_BITS.get(word);
  if (bits !== undefined) return bits;
  bits = 0;
  for (let i = 0; i < NAMING_WORDS.length; i += 1) if (NAMING_WORDS[i]![1].test(word)) bits |= 1 << i;
  if (WORD_BITS.size >= WORD_BITS_LIMIT) WORD_BITS.clear();
  WORD_BITS.set(word, bits);
  return bits;
}

/**
 * Elements that hold a block of their own: every element but the inline ones, and an inline element
 * with such an element inside it (a <span> wrapping paragraphs, a link around a card). One pass, children before parents.
 */
function blockishElements(body: HTMLElement): Set<HTMLElement> {
  const order: HTMLElement[] = [];
  const stack: Node[] = [body];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeType !== NodeType.ELEMENT_NODE) continue;
    order.push(node as HTMLElement);
    for (const child of node.childNodes) stack.push(child);
  }
  const blockish = new Set<HTMLElement>();
  for (let i = order.length - 1; i >= 0; i -= 1) {
    const element = order[i]!;
    const tag = element.rawTagName?.toLowerCase() ?? '';
    if (!INLINE.has(tag)) {
      blockish.add(element);
      continue;
    }
    for (const child of element.childNodes)
      if (blockish.has(child as HTMLElement)) {
        blockish.add(element);
        break;
      }
  }
  return blockish;
}

/**
 * A run's text (entities decoded, dropped and hidden elements left out), its link text, links and
 * images. The run's own elements were vetted by segment(); only what is inside them is checked here.
 */
function measureRun(nodes: Node[], inA: boolean): { text: string; linkText: number; links: number; images: number } {
  const parts: string[] = [];
  let linkText = 0;
  let links = 0;
  let images = 0;
  // [node, linked, vetted]
  const stack: Array<[Node, boolean, boolean]> = [];
  for (let i = nodes.length - 1; i >= 0; i -= 1) stack.push([nodes[i]!, inA, true]);
  while (stack.length > 0) {
    const [node, linked, vetted] = stack.pop()!;
    if (node.nodeType === NodeType.TEXT_NODE) {
      const raw = (node as TextNode).rawText;
      const text = raw.includes('&') ? (node as TextNode).text : raw;
      parts.push(text);
      if (linked) linkText += text.trim().length;
      continue;
    }
    if (node.nodeType !== NodeType.ELEMENT_NODE) continue;
    const element = node as HTMLElement;
    const tag = element.rawTagName?.toLowerCase() ?? '';
    if (tag === 'img') images += 1;
    if (tag === 'br') parts.push(' ');
    if (!vetted && (isDroppedElement(tag) || isHiddenElement(element))) continue;
    if (tag === 'a') links += 1;
    for (let i = element.childNodes.length - 1; i >= 0; i -= 1) stack.push([element.childNodes[i]!, linked || tag === 'a', false]);
  }
  return { text: parts.join('').replace(/\s+/g, ' ').trim(), linkText, links, images };
}

/** Each block's list number (see ContentBlock.list). */
function listsOf(raw: RawBlock[]): number[] {
  const keys = raw.map((b) => (b.element.parentNode ? signatureOf(b.element) : null));
  const members = new Map<Node, Map<string, number>>();
  raw.forEach((b, i) => {
    const parent = b.element.parentNode;
    if (!parent || keys[i] === null) return;
    const bySignature = members.get(parent) ?? new Map<string, number>();
    bySignature.set(keys[i]!, (bySignature.get(keys[i]!) ?? 0) + 1);
    members.set(parent, bySignature);
  });
  const numbers = new Map<Node, Map<string, number>>();
  let next = 0;
  return raw.map((b, i) => {
    const parent = b.element.parentNode;
    if (!parent || keys[i] === null || (members.get(parent)?.get(keys[i]!) ?? 0) < LIST_ITEMS) return -1;
    const bySignature = numbers.get(parent) ?? new Map<string, number>();
    numbers.set(parent, bySignature);
    if (!bySignature.has(keys[i]!)) bySignature.set(keys[i]!, next++);
    return bySignature.get(keys[i]!)!;
  });
}

function describe(
  raw: RawBlock[],
  located: LocatedContent | null,
  rulesFallback: boolean,
  types: number[],
  lists: number[],
): ContentBlock[] {
  const lengths = raw.map((b) => b.text.length);
  const total = lengths.reduce((sum, n) => sum + n, 0);
  const totalLinks = raw.reduce((sum, b) => sum + b.linkText, 0);
  const density = (b: RawBlock | undefined) => (b ? Math.min(1, b.linkText / Math.max(1, b.text.length)) : 0);
  const h1Index = raw.findIndex((b) => b.context.heading === 1);
  const seen = new Map<string, number>();
  for (const b of raw) seen.set(b.text, (seen.get(b.text) ?? 0) + 1);
  // Text under each block's parent element: the block's share of the container it sits in.
  const parentText = new Map<HTMLElement | null, number>();
  for (const b of raw) parentText.set(b.element.parentNode ?? null, (parentText.get(b.element.parentNode ?? null) ?? 0) + b.text.length);
  const kindIndex = located ? PAGE_KINDS.indexOf(located.kind) : -1;
  const rootShare = located && located.pageText > 0 ? located.text / located.pageText : 1;
  let before = 0;
  const h1Offset = h1Index >= 0 ? lengths.slice(0, h1Index).reduce((sum, n) => sum + n, 0) : -1;
  return raw.map((b, i) => {
    const shape = textShapeOf(b.text);
    const chars = b.text.length;
    let windowChars = 0;
    let windowLinks = 0;
    for (let w = Math.max(0, i - 2); w < Math.min(raw.length, i + 3); w += 1) {
      windowChars += lengths[w]!;
      windowLinks += raw[w]!.linkText;
    }
    const rulesKept = rulesFallback || (b.context.inRoot && !b.context.inSkip);
    // Written in place, in BLOCK_FEATURES' order: a page has hundreds of blocks, and no array per group.
    const features = new Float64Array(BLOCK_FEATURES.length);
    let at = 0;
    const put = (value: number) => (features[at++] = value);
    put(Math.log1p(chars));
    put(Math.log1p(shape.words));
    put(density(b));
    put(b.links);
    put(b.images);
    put(shape.punctuation / Math.max(1, chars));
    put(shape.sentences);
    put(shape.digits / Math.max(1, chars));
    put(shape.words === 0 ? 0 : shape.wordChars / shape.words);
    for (const tag of BLOCK_TAGS) put(b.tag === tag ? 1 : 0);
    put(b.context.heading);
    put(b.context.depth);
    for (let bit = 0; bit < ANCESTOR_TAGS.length; bit += 1) put((b.context.ancestors >> bit) & 1);
    for (let bit = 0; bit < NAMING_WORDS.length; bit += 1) put((b.context.naming >> bit) & 1);
    put(b.context.itemprop ? 1 : 0);
    put(b.context.itemtype ? 1 : 0);
    put(b.context.inRoot ? 1 : 0);
    put(b.context.inSkip ? 1 : 0);
    put(rulesKept ? 1 : 0);
    put(rulesFallback ? 1 : 0);
    put(located?.confidence ?? 0);
    put(rootShare);
    for (let k = 0; k < PAGE_KINDS.length; k += 1) put(k === kindIndex ? 1 : 0);
    put(total > 0 ? before / total : 0);
    put(raw.length > 1 ? i / (raw.length - 1) : 0);
    put(h1Index < 0 ? -1 : i >= h1Index ? 1 : 0);
    put(h1Offset < 0 || total === 0 ? 0 : (before - h1Offset) / total);
    put(Math.log1p(lengths[i - 1] ?? 0));
    put(density(raw[i - 1]));
    put(Math.log1p(lengths[i + 1] ?? 0));
    put(density(raw[i + 1]));
    put(Math.min(1, windowLinks / Math.max(1, windowChars)));
    put(Math.log1p(windowChars));
    put(chars / Math.max(1, parentText.get(b.element.parentNode ?? null) ?? chars));
    put(Math.log1p(b.context.repeat - 1));
    put(Math.log1p(b.context.parentRepeat - 1));
    put((seen.get(b.text) ?? 1) - 1);
    put(Math.log1p(total));
    put(Math.log1p(raw.length));
    put(Math.min(1, totalLinks / Math.max(1, total)));
    for (const p of types) put(p);
    before += chars;
    return { element: b.element, nodes: b.nodes, text: b.text, features, list: lists[i]! };
  });
}

/**
 * Words (runs of letters, digits and _), their letters, punctuation, digits and sentence ends
 * (., ! or ? before a space or the end, or a full-width one), in one pass over the text.
 */
function textShapeOf(text: string): { words: number; wordChars: number; punctuation: number; digits: number; sentences: number } {
  let words = 0;
  let wordChars = 0;
  let punctuation = 0;
  let digits = 0;
  let sentences = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    let wordCharacter: boolean;
    if (c < 128) {
      const digit = c >= 48 && c <= 57;
      if (digit) digits += 1;
      wordCharacter = digit || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    } else wordCharacter = c >= 0xd800 && c <= 0xdbff ? true : WORD_CHARACTER.test(text[i]!);
    if (wordCharacter) {
      if (!inWord) words += 1;
      wordChars += 1;
    } else if (PUNCTUATION.has(c)) {
      punctuation += 1;
      const next = text.charCodeAt(i + 1);
      if (SENTENCE_ENDS.has(c) && (c > 127 || Number.isNaN(next) || next === 32)) sentences += 1;
    }
    inWord = wordCharacter;
  }
  return { words, wordChars, punctuation, digits, sentences };
}

/**
 * What converting the page leaves out when only the kept blocks are the content: each left-out
 * block's own nodes, and every element whose text all sits in left-out blocks (so an emptied list
 * item or table row does not remain as an empty shell).
 */
export function nodesLeftOut(blocks: readonly ContentBlock[], kept: readonly boolean[]): Set<Node> {
  const skip = new Set<Node>();
  const keptText = new Map<Node, number>();
  const allText = new Map<Node, number>();
  blocks.forEach((block, i) => {
    if (!kept[i]) for (const node of block.nodes) skip.add(node);
    for (let node: Node | null = block.element; node; node = node.parentNode) {
      allText.set(node, (allText.get(node) ?? 0) + block.text.length);
      if (kept[i]) keptText.set(node, (keptText.get(node) ?? 0) + block.text.length);
    }
  });
  for (const [node, text] of allText) if (text > 0 && !keptText.has(node)) skip.add(node);
  return skip;
}
