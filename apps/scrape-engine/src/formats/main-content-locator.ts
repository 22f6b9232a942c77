import { type HTMLElement, NodeType, type TextNode } from 'node-html-parser';
import { isDroppedElement, isHiddenElement } from './conversion-tree';
import type { ParsedPage } from './parsed-page';

/** The kinds of page main content is read for (WCXB's page types). */
export const PAGE_KINDS = ['article', 'forum', 'product', 'collection', 'listing', 'documentation', 'service'] as const;
export type PageKind = (typeof PAGE_KINDS)[number];

export const REMOVAL_REASONS = [
  'navigation',
  'header',
  'footer',
  'sidebar',
  'banner',
  'form',
  'share',
  'related',
  'comments',
  'links',
] as const;
export type RemovalReason = (typeof REMOVAL_REASONS)[number];

export interface LocatedContent {
  /** The element whose content is the page's main content (the body when nothing narrower holds it). */
  root: HTMLElement;
  /** Elements under root left out of the main content, by evidence. */
  skip: Set<HTMLElement>;
  kind: PageKind;
  /** Why the kind was chosen: `json-ld:Product`, `og:article`, `generator:Discourse 3.2`, `url:/t/…`, `comments:71%`. */
  kindEvidence: string[];
  /** 0–1: how much the located content stands out from the rest of the page. */
  confidence: number;
  /** Characters of text left out, by reason. */
  removed: Partial<Record<RemovalReason, number>>;
  /** Nothing set any part of the page apart (no boilerplate found, the whole body holds the content). */
  wholePage: boolean;
  /** Characters of text in the located content, and in the whole page. */
  text: number;
  pageText: number;
}

interface Stats {
  text: number;
  linkText: number;
  paragraphs: number;
  links: number;
  /** <h1> elements: a block holding the page's title is not its header chrome. */
  titles: number;
  /** Paragraphs of a few sentences (SENTENCE characters) that are not mostly links: someone's prose. */
  sentences: number;
}

// Past these, a page is read whole (the bounds the markdown conversion keeps anyway).
const MAX_ELEMENTS = 60_000;
// The located root descends into a child that holds at least this share of its text (chosen on WCXB: docs/benchmarks.md).
const DOMINANT_SHARE = 0.8;

const STRUCTURAL: Record<string, RemovalReason> = { nav: 'navigation', aside: 'sidebar', footer: 'footer', form: 'form' };
const ROLES: Record<string, RemovalReason> = {
  navigation: 'navigation',
  banner: 'header',
  contentinfo: 'footer',
  complementary: 'sidebar',
  search: 'form',
  dialog: 'banner',
  alertdialog: 'banner',
};
// Class and id words (split on - and _) that name boilerplate; only believed for a block holding a small part of the page.
const BOILERPLATE_WORDS: Array<[RegExp, RemovalReason]> = [
  [/^(?:nav|navbar|navigation|menu|menubar|breadcrumbs?|skip|pagination|pager|toc)$/, 'navigation'],
  [/^(?:footer|colophon)$/, 'footer'],
  [/^(?:masthead|topbar|header)$/, 'header'],
  [/^(?:sidebar|rail|widget|widgets)$/, 'sidebar'],
  [
    /^(?:cookie|cookies|consent|gdpr|newsletter|subscribe|subscription|signup|promo|advert|advertisement|ads|sponsor|sponsored|banner)$/,
    'banner',
  ],
  [/^(?:share|sharing|social|socials|sharebar)$/, 'share'],
  [/^(?:related|recommended|recommendations|trending|popular|more|outbrain|taboola)$/, 'related'],
  [/^(?:comments?|disqus|respond|replies)$/, 'comments'],
];
// Layers over the page (a terms-of-service modal, a newsletter popup): never its content, however
// much text they hold, unless the page's title is in them.
const OVERLAY_WORDS = /^(?:modal|modals|popup|popups|lightbox)$/;
// On a product page, its reviews and ratings: comments on the product, not the product.
const REVIEW_WORDS = /^(?:reviews?|ratings?|bazaarvoice|bv|yotpo|okendo|judgeme|stamped|trustpilot|ugc|qa|questions)$/;
// A product's reviews may hold most of its page; below this share of it they are set apart.
const REVIEW_SHARE = 0.8;
// Class names page builders give every block they lay out (Elementor, Divi, WPBakery, Beaver Builder, Gutenberg).
const PAGE_BUILDER_NAME = /(?:^|\s)(?:elementor|et_pb|vc_|fl-|wp-block)/;
const PAGE_BUILDER_NAMES = /(?:^|\s)(?:elementor|et_pb|vc_|fl-|wp-block)\S*/g;
// Blocks set apart that are read again, largest first, before a page is read whole (chosen on WCXB: docs/benchmarks.md).
const RESET_TRIES = 3;
// A block whose words say boilerplate is believed only while it holds less than this share of the page's text.
const BOILERPLATE_SHARE = 0.3;
// Inside content: a block of at least this many links making up this share of its text is a link list.
const LINK_BLOCK_LINKS = 3;
const LINK_BLOCK_DENSITY = 0.6;
// Content with this many paragraphs reads as prose (an article, a doc page), whatever the page says it is.
const PROSE_PARAGRAPHS = 5;
// What the located root may descend into: elements that hold blocks of content.
const CONTAINERS = new Set([
  'div',
  'main',
  'article',
  'section',
  'body',
  'center',
  'font',
  'form',
  'table',
  'tbody',
  'tr',
  'td',
  'ul',
  'ol',
  'dl',
]);
// The share of the located text a product's area around its name holds, at least.
const PRODUCT_AREA_SHARE = 0.3;
// A block with this many paragraphs (and few links) is prose, whatever its class words say.
const PROSE_BLOCK_PARAGRAPHS = 3;
// A paragraph this long (characters) is a few sentences of someone's prose.
const SENTENCE = 150;
// Menu entries are a word or two; a listing's titles are longer.
const MENU_LINK_TEXT = 20;
// Comment-marked blocks holding more than this share of the page's text are its posts.
const THREAD_SHARE = 0.4;

/**
 * Finds a page's main content on the page's one parse, by evidence: structural boilerplate
 * (navigation, page header and footer, sidebars, forms, dialogs), blocks that say what they are
 * in their class or id (cookie banners, share bars, related rails) while holding little of the
 * page, and link lists; then the smallest element that still holds nearly all the text left.
 * A thread's posts, a grid's items or a product's parts are siblings no one of which dominates,
 * so the descent stops above them and keeps them all. Work is linear in the page (one post-order
 * pass, no recursion); a page past the bounds is read whole.
 */
export function locateMainContent(page: ParsedPage): LocatedContent | null {
  const body = page.body;
  const stats = new Map<HTMLElement, Stats>();
  if (!measure(body, stats)) return null;
  const pageText = stats.get(body)!.text;
  const kind = pageKindOf(page);
  let skip = new Set<HTMLElement>();
  let removed: Partial<Record<RemovalReason, number>> = {};
  const keepingComments = (keep: boolean) => (el: HTMLElement, st: Stats) => boilerplateReason(el, st, pageText, keep, kind.kind);
  setApart(body, stats, skip, removed, keepingComments(kind.kind === 'forum'));
  // Posts that call themselves comments and hold most of the page are the page: a thread.
  // (An article or a product that says it is one keeps its comments or reviews out, however many.)
  if (kind.kind !== 'forum' && kind.kind !== 'product' && !kind.declaredArticle && (removed.comments ?? 0) > pageText * THREAD_SHARE) {
    kind.evidence.push(`comments:${Math.round(((removed.comments ?? 0) / pageText) * 100)}%`);
    kind.kind = 'forum';
    [skip, removed] = [new Set(), {}];
    setApart(body, stats, skip, removed, keepingComments(true));
  }
  // Evidence that took (nearly) everything was wrong about some block: the largest one set apart
  // (a <nav> wrapping the page's content) is read again, its own boilerplate still set apart; if
  // that is not enough either, the page is read whole.
  const leftBy = (set: Set<HTMLElement>) => pageText - [...set].reduce((sum, el) => sum + (stats.get(el)?.text ?? 0), 0);
  const reasonOf = keepingComments(kind.kind === 'forum');
  for (let tries = 0; pageText > 0 && leftBy(skip) < pageText * 0.1 && tries < RESET_TRIES; tries += 1) {
    let largest: HTMLElement | null = null;
    for (const el of skip) if (!largest || (stats.get(el)?.text ?? 0) > (stats.get(largest)?.text ?? 0)) largest = el;
    const st = stats.get(largest!)!;
    const reason = reasonOf(largest!, st);
    skip.delete(largest!);
    if (reason) removed[reason] = Math.max(0, (removed[reason] ?? 0) - st.text);
    setApart(largest!, stats, skip, removed, reasonOf);
  }
  if (pageText > 0 && leftBy(skip) < pageText * 0.1) {
    [skip, removed] = [new Set(), {}];
  }
  let keptText = keptTextOf(body, stats, skip);
  const kept = (el: HTMLElement) => keptText.get(el) ?? 0;
  let root = body;
  let rootText = kept(body);
  for (;;) {
    let best: HTMLElement | null = null;
    let bestText = 0;
    for (const child of root.childNodes) {
      if (child.nodeType !== NodeType.ELEMENT_NODE || skip.has(child as HTMLElement)) continue;
      // A paragraph, a heading, a list item or a link is content itself, not a container of it.
      if (!CONTAINERS.has((child as HTMLElement).rawTagName?.toLowerCase() ?? '')) continue;
      const text = kept(child as HTMLElement);
      if (text > bestText) [best, bestText] = [child as HTMLElement, text];
    }
    if (!best || bestText < rootText * DOMINANT_SHARE) break;
    // Paragraphs beside it are the content it sits in (an article's text around a 50-slide gallery
    // holding most of its characters): the descent would leave them out.
    if (paragraphsBeside(root, best, stats, skip) >= PROSE_PARAGRAPHS) break;
    root = best;
    rootText = bestText;
  }
  // A product page's content is around its name: from the <h1>, the nearest enclosing block that
  // holds this share of the located text (the gallery, price, description and specs; not the
  // reviews and recommendations that share the page's main area).
  if (kind.kind === 'product') {
    const anchored = productAreaOf(root, stats, kept, rootText);
    if (anchored) [root, rootText] = [anchored, kept(anchored)];
  }
  // Inside the content of an article or a thread, a block that is mostly links (a related-stories
  // list, a tag list, a table of contents, hot questions) is not the content; a grid's or an
  // index's items are, so those keep theirs (on product and doc pages dropping them scored no better).
  const prose = (stats.get(root)?.paragraphs ?? 0) >= PROSE_PARAGRAPHS;
  // A thread's posts are prose too: a list of links among them is the site's (hot questions, similar threads).
  if (
    ((kind.declaredArticle && prose) || kind.kind === 'forum') &&
    setApart(root, stats, skip, removed, (_, st) => (isLinkBlock(st, rootText) ? 'links' : null))
  )
    keptText = keptTextOf(body, stats, skip);
  const totalKept = kept(body);
  const confidence = totalKept === 0 ? 0 : Math.min(1, rootText / Math.max(1, pageText)) * 0.5 + (rootText / totalKept) * 0.5;
  const wholePage = skip.size === 0 && rootText >= pageText;
  return { root, skip, kind: kind.kind, kindEvidence: kind.evidence, confidence, removed, wholePage, text: rootText, pageText };
}

/** One post-order pass: each element's text, link text, paragraphs and links (dropped and hidden elements count nothing). */
function measure(body: HTMLElement, stats: Map<HTMLElement, Stats>): boolean {
  const stack: Array<[HTMLElement, boolean]> = [[body, false]];
  while (stack.length > 0) {
    const [el, done] = stack.pop()!;
    if (!done) {
      if (stats.size + stack.length > MAX_ELEMENTS) return false;
      const name = (el.rawTagName ?? '').toLowerCase();
      if (el !== body && (isDroppedElement(name) || isHiddenElement(el))) {
        stats.set(el, { text: 0, linkText: 0, paragraphs: 0, links: 0, titles: 0, sentences: 0 });
        continue;
      }
      stack.push([el, true]);
      for (const child of el.childNodes) if (child.nodeType === NodeType.ELEMENT_NODE) stack.push([child as HTMLElement, false]);
      continue;
    }
    const s: Stats = { text: 0, linkText: 0, paragraphs: 0, links: 0, titles: 0, sentences: 0 };
    for (const child of el.childNodes) {
      if (child.nodeType === NodeType.TEXT_NODE) s.text += textLength((child as TextNode).rawText);
      else if (child.nodeType === NodeType.ELEMENT_NODE) {
        const c = stats.get(child as HTMLElement);
        if (!c) continue;
        s.text += c.text;
        s.linkText += c.linkText;
        s.paragraphs += c.paragraphs;
        s.links += c.links;
        s.titles += c.titles;
        s.sentences += c.sentences;
      }
    }
    const name = (el.rawTagName ?? '').toLowerCase();
    if (name === 'a') {
      s.linkText = s.text;
      s.links += 1;
    } else if (name === 'p' || name === 'pre' || name === 'blockquote') {
      s.paragraphs += 1;
      if (name === 'p' && s.text >= SENTENCE && s.linkText < s.text * 0.5) s.sentences += 1;
    } else if (name === 'h1') s.titles += 1;
    stats.set(el, s);
  }
  return true;
}

/** Characters of a text node without its runs of whitespace (an approximation that needs no allocation). */
function textLength(raw: string): number {
  let n = 0;
  let space = true;
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw.charCodeAt(i);
    const isSpace = c === 32 || c === 10 || c === 9 || c === 13 || c === 12;
    if (isSpace) {
      if (!space) n += 1;
      space = true;
    } else {
      n += 1;
      space = false;
    }
  }
  return n;
}

/**
 * Sets apart, under root, every block `reasonOf` gives a reason for (its subtree with it, unread),
 * counting its text under that reason; says whether it set anything apart.
 */
function setApart(
  root: HTMLElement,
  stats: Map<HTMLElement, Stats>,
  skip: Set<HTMLElement>,
  removed: Partial<Record<RemovalReason, number>>,
  reasonOf: (el: HTMLElement, s: Stats) => RemovalReason | null,
): boolean {
  const before = skip.size;
  const stack: HTMLElement[] = [];
  for (const child of root.childNodes) if (child.nodeType === NodeType.ELEMENT_NODE) stack.push(child as HTMLElement);
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (skip.has(el)) continue;
    const s = stats.get(el);
    if (!s || s.text === 0) continue;
    const reason = reasonOf(el, s);
    if (reason) {
      skip.add(el);
      removed[reason] = (removed[reason] ?? 0) + s.text;
      continue;
    }
    for (const child of el.childNodes) if (child.nodeType === NodeType.ELEMENT_NODE) stack.push(child as HTMLElement);
  }
  return skip.size > before;
}

function boilerplateReason(el: HTMLElement, s: Stats, pageText: number, keepComments: boolean, kind: PageKind): RemovalReason | null {
  const name = (el.rawTagName ?? '').toLowerCase();
  const small = s.text < pageText * BOILERPLATE_SHARE;
  const structural = STRUCTURAL[name];
  if (structural && (small || name === 'nav')) return structural;
  if (name === 'header' && small && (s.linkText > s.text * 0.4 || s.paragraphs === 0)) return 'header';
  const role = el.getAttribute('role');
  if (role && ROLES[role] && small) return ROLES[role]!;
  if (el.getAttribute('aria-modal') === 'true' || name === 'dialog') return 'banner';
  const words = namingWordsOf(el);
  if (s.titles === 0 && words.trim()) {
    for (const word of words.split(/[\s_-]+/)) {
      if (OVERLAY_WORDS.test(word)) return 'banner';
      if (kind === 'product' && s.text < pageText * REVIEW_SHARE && REVIEW_WORDS.test(word)) return 'comments';
    }
  }
  if (!small) return null;
  // Words are a weaker sign than a tag: a block of prose (paragraphs, few links) or one holding the
  // page's title is content whatever its class says (`entry-header`, `share-friendly-article`);
  // comments are prose too, and are still comments.
  const prose = s.paragraphs >= PROSE_BLOCK_PARAGRAPHS && s.linkText < s.text * 0.3;
  if (words.trim()) {
    for (const word of words.split(/[\s_-]+/)) {
      if (!word) continue;
      for (const [pattern, reason] of BOILERPLATE_WORDS) {
        if (reason === 'comments' && keepComments) continue;
        if (reason !== 'comments' && reason !== 'navigation' && (prose || s.titles > 0)) continue;
        if (pattern.test(word)) return reason;
      }
    }
  }
  // A list of short links with little text of their own: a menu, a tag cloud, a footer's columns
  // (a listing's items are links too, but with titles of their own length).
  if (s.links >= 4 && s.linkText > s.text * 0.7 && s.paragraphs === 0 && s.linkText / s.links < MENU_LINK_TEXT) return 'links';
  return null;
}

/**
 * The class and id of a block, less the word page builders give every block they lay out (Elementor's
 * `elementor-widget-wrap` wraps content and chrome alike: its "widget" says nothing, where a
 * WordPress sidebar's `widget` does; `elementor-location-footer` still says footer).
 */
function namingWordsOf(el: HTMLElement): string {
  const names = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`.toLowerCase();
  return PAGE_BUILDER_NAME.test(names) ? names.replace(PAGE_BUILDER_NAMES, (name) => name.replace(/widgets?/g, '')) : names;
}

function productAreaOf(
  root: HTMLElement,
  stats: Map<HTMLElement, Stats>,
  kept: (el: HTMLElement) => number,
  rootText: number,
): HTMLElement | null {
  let title: HTMLElement | null = null;
  const stack: HTMLElement[] = [root];
  while (stack.length > 0 && !title) {
    const el = stack.pop()!;
    if ((stats.get(el)?.titles ?? 0) === 0) continue;
    if (el.rawTagName?.toLowerCase() === 'h1') title = el;
    else
      for (let i = el.childNodes.length - 1; i >= 0; i -= 1)
        if (el.childNodes[i]!.nodeType === NodeType.ELEMENT_NODE) stack.push(el.childNodes[i] as HTMLElement);
  }
  for (let el = title?.parentNode as HTMLElement | null; el && el !== root; el = el.parentNode as HTMLElement | null) {
    if (kept(el) >= rootText * PRODUCT_AREA_SHARE) return el;
  }
  return null;
}

/** Prose paragraphs (`sentences`) under `root`'s kept children other than `child`. */
function paragraphsBeside(root: HTMLElement, child: HTMLElement, stats: Map<HTMLElement, Stats>, skip: Set<HTMLElement>): number {
  let count = 0;
  for (const other of root.childNodes) {
    if (other === child || other.nodeType !== NodeType.ELEMENT_NODE || skip.has(other as HTMLElement)) continue;
    count += stats.get(other as HTMLElement)?.sentences ?? 0;
  }
  return count;
}

/** Inside located content: a block of several links that are most of its text, and a small part of the content. */
function isLinkBlock(s: Stats, rootText: number): boolean {
  return s.links >= LINK_BLOCK_LINKS && s.linkText > s.text * LINK_BLOCK_DENSITY && s.text < rootText * BOILERPLATE_SHARE;
}

/**
 * Each element's text less what the skipped blocks under it hold, in one post-order pass (a walk
 * up from each skipped block would cost blocks × depth on a deep page).
 */
function keptTextOf(body: HTMLElement, stats: Map<HTMLElement, Stats>, skip: Set<HTMLElement>): Map<HTMLElement, number> {
  const kept = new Map<HTMLElement, number>();
  const stack: Array<[HTMLElement, boolean]> = [[body, false]];
  while (stack.length > 0) {
    const [el, done] = stack.pop()!;
    const s = stats.get(el);
    if (!s || skip.has(el) || s.text === 0) {
      kept.set(el, 0);
      continue;
    }
    if (!done) {
      stack.push([el, true]);
      for (const child of el.childNodes) if (child.nodeType === NodeType.ELEMENT_NODE) stack.push([child as HTMLElement, false]);
      continue;
    }
    let text = s.text;
    for (const child of el.childNodes) {
      if (child.nodeType !== NodeType.ELEMENT_NODE) continue;
      text -= (stats.get(child as HTMLElement)?.text ?? 0) - (kept.get(child as HTMLElement) ?? 0);
    }
    kept.set(el, text);
  }
  return kept;
}

// schema.org types (JSON-LD) and OpenGraph types that say what a page is.
const SCHEMA_KINDS: Array<[RegExp, PageKind]> = [
  [/^(?:DiscussionForumPosting|QAPage|Question|SocialMediaPosting|Comment)$/, 'forum'],
  [/^(?:Product|ProductGroup|IndividualProduct|ProductModel|Vehicle|Book|SoftwareApplication|MobileApplication)$/, 'product'],
  [/^(?:CollectionPage|OfferCatalog|SearchResultsPage)$/, 'collection'],
  [/^(?:TechArticle|APIReference)$/, 'documentation'],
  [
    /^(?:NewsArticle|Article|BlogPosting|Report|ScholarlyArticle|Recipe|Review|LiveBlogPosting|OpinionNewsArticle|AnalysisNewsArticle)$/,
    'article',
  ],
  [/^(?:ItemList)$/, 'listing'],
  [/^(?:Service|Organization|LocalBusiness|Corporation|SoftwareSourceCode|WebApplication|FAQPage|AboutPage|ContactPage)$/, 'service'],
];
const OG_KINDS: Record<string, PageKind> = { article: 'article', product: 'product', 'og:product': 'product', 'product.item': 'product' };
// Forum software and thread addresses: what a page's generator and URL say before its structure is read.
const FORUM_GENERATOR = /\b(?:discourse|vbulletin|phpbb|xenforo|flarum|invision|mybb|smf|nodebb|vanilla)\b/i;
const FORUM_URL = /\/(?:t|threads?|topics?|questions|forums?|community|discussions?|viewtopic|showthread|comments)(?:[/.?]|\.php)/i;
const DOCS_URL = /(?:^|[/.])(?:docs?|documentation|api|reference|manual|wiki|guide|learn|developer)s?(?:[/.]|$)/i;
const MAX_JSON_LD = 200_000;

/** The page's kind from its structured data, its OpenGraph type, its software and its address, with the evidence. */
export function pageKindOf(page: ParsedPage): { kind: PageKind; evidence: string[]; declaredArticle: boolean } {
  const evidence: string[] = [];
  const votes = new Map<PageKind, number>();
  const vote = (kind: PageKind, weight: number, why: string) => {
    votes.set(kind, (votes.get(kind) ?? 0) + weight);
    evidence.push(why);
  };
  const seen = new Map<PageKind, number>();
  const types = jsonLdTypesOf(page.html);
  const productGroup = types.includes('ProductGroup');
  // A product's reviews describe the product: they do not make its page an article or an index.
  const aboutProduct = types.some((type) => SCHEMA_KINDS.find(([pattern]) => pattern.test(type))?.[1] === 'product');
  for (const type of types) {
    if (aboutProduct && (type === 'Review' || type === 'AggregateRating')) continue;
    const match = SCHEMA_KINDS.find(([pattern]) => pattern.test(type));
    if (!match) continue;
    const times = (seen.get(match[1]) ?? 0) + 1;
    seen.set(match[1], times);
    // Many products or articles described on one page: a grid or an index of them.
    // (A product group lists its variants as products: still one product.)
    if (times === 3 && match[1] === 'product' && !productGroup) vote('collection', 7, `json-ld:${type}×3`);
    else if (times === 3 && match[1] === 'article') vote('listing', 7, `json-ld:${type}×3`);
    else if (times === 1) vote(match[1], match[1] === 'service' ? 1 : 3, `json-ld:${type}`);
  }
  const head = page.head;
  if (head) {
    for (const meta of head.getElementsByTagName('meta')) {
      const property = (meta.getAttribute('property') ?? meta.getAttribute('name') ?? '').toLowerCase();
      const content = (meta.getAttribute('content') ?? '').trim();
      if (property === 'og:type' && OG_KINDS[content.toLowerCase()]) vote(OG_KINDS[content.toLowerCase()]!, 2, `og:${content}`);
      else if (property === 'generator' && FORUM_GENERATOR.test(content)) vote('forum', 3, `generator:${content.slice(0, 40)}`);
    }
  }
  let path = '';
  try {
    const url = new URL(page.url);
    path = url.pathname + url.search;
    if (FORUM_URL.test(path)) vote('forum', 2, `url:${path.slice(0, 40)}`);
    else if (DOCS_URL.test(url.hostname) || DOCS_URL.test(url.pathname))
      vote('documentation', 1, `url:${(url.hostname + url.pathname).slice(0, 40)}`);
  } catch {
    // A page without a usable URL is judged by its content alone.
  }
  let kind: PageKind = 'article';
  let best = 0;
  for (const [candidate, weight] of votes) if (weight > best) [kind, best] = [candidate, weight];
  return { kind, evidence, declaredArticle: kind === 'article' && best > 0 };
}

/** The @type values of the page's JSON-LD blocks (graphs and lists included), read by their text, bounded. */
function jsonLdTypesOf(html: string): string[] {
  const types: string[] = [];
  const open = /<script\b[^<>]*type=["']?application\/ld\+json[^<>]*>/gi;
  let read = 0;
  for (let m = open.exec(html); m && read < MAX_JSON_LD; m = open.exec(html)) {
    const end = html.indexOf('</script', open.lastIndex);
    if (end < 0) break;
    const block = html.slice(open.lastIndex, Math.min(end, open.lastIndex + MAX_JSON_LD - read));
    read += block.length;
    for (const t of block.matchAll(/"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")/g)) {
      for (const name of t[1]!.matchAll(/"([^"]+)"/g)) types.push(name[1]!.replace(/^https?:\/\/schema\.org\//, ''));
    }
    open.lastIndex = end;
  }
  return types;
}
