import TurndownService from 'turndown';
import { type MainContentModel, shippedMainContentModel } from './block-model';
import { conversionTreeOf, type ElementNode } from './conversion-tree';
import { readWithModel } from './main-content-reading';
import { type MainContentReader } from './main-content-reader';
import { type LocatedContent, locateMainContent, type PageKind } from './main-content-locator';
import type { MainContentReport } from '@lib/contracts';
import type { HTMLElement as HTMLElementNode, Node as ParsedNode } from 'node-html-parser';
import { escapeMarkdownText, MARKDOWN_RULES } from './markdown-rules';
import { elementsOf, type ParsedPage, textOf } from './parsed-page';

export interface MarkdownOptions {
  /** Images as `![alt](absolute-url)` (default), or left out. */
  includeImages?: boolean;
  /** Only the page's main article (navigation, headers, footers, banners, sidebars and comments dropped). */
  onlyMainContent?: boolean;
  /**
   * Which main-content reader: our locator (default; docs/decisions/0020) or Mozilla Readability,
   * kept for bench:main-content's side-by-side table.
   */
  mainContentEngine?: 'readability' | 'locator';
  /**
   * The model that decides, block by block, what of the page is main content (decision 0041): the
   * shipped model when not given, none (the locator's rules alone) when null.
   */
  model?: MainContentModel | null;
}

export interface MarkdownResult {
  markdown: string;
  /** Set when the page could not be converted and `markdown` holds its visible text instead. */
  degraded: string | null;
  /** onlyMainContent found no article, so the whole page was converted. */
  mainContentFallback: boolean;
  /** onlyMainContent (our locator): what it found and left out, for metadata.main_content. */
  mainContent?: MainContentReport;
  /** Why the whole page was converted although main content was located (too little kept). */
  fallbackReason?: string;
  /** The kind of page the locator read (so metadata need not classify the page again). */
  pageKind?: PageKind;
  /** The model read the page as having no main content: markdown is empty on purpose, and this says why. */
  noMainContent?: string;
}

/**
 * HTML → GitHub-flavoured markdown with turndown, over the page's one node-html-parser parse:
 * ATX headings, fenced code blocks for every <pre> (language kept), GFM tables for every data
 * table, nested lists, links and images made absolute against the page URL (or its <base href>),
 * text that looks like markup escaped, and nothing from scripts, styles, templates or hidden
 * elements. One element that a rule cannot convert is kept as its text; a page that cannot be
 * converted at all comes back as its visible text with `degraded` saying why.
 */
export class MarkdownConverter {
  private readonly turndown: TurndownService;

  constructor(
    private readonly mainContent: MainContentReader,
    rules: Record<string, TurndownService.Rule> = MARKDOWN_RULES,
    private readonly model: MainContentModel | null = shippedMainContentModel(),
  ) {
    this.turndown = new TurndownService({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
      emDelimiter: '_',
      hr: '---',
    });
    this.turndown.escape = escapeMarkdownText;
    for (const [key, rule] of Object.entries(rules)) this.turndown.addRule(key, rule);
    this.turndown.addRule('listItem', { filter: 'li', replacement: listItem });
    guardReplacements(this.turndown);
    indexRulesByElement(this.turndown);
  }

  convert(page: ParsedPage, options: MarkdownOptions = {}): MarkdownResult {
    const includeImages = options.includeImages ?? true;
    let source = page.body;
    let baseUrl = page.baseUrl;
    let mainContentFallback = false;
    let skip: ReadonlySet<HTMLElementNode | ParsedNode> | undefined;
    let title = '';
    let mainContent: MainContentReport | undefined;
    let fallbackReason: string | undefined;
    let pageKind: PageKind | undefined;
    if (options.onlyMainContent && options.mainContentEngine !== 'readability') {
      const located = locateMainContent(page);
      const tooLittle = located !== null && keptTooLittle(located);
      if (located && !located.wholePage && !tooLittle) {
        ({ root: source, skip } = located);
        // The content is headed by the page's title unless it has a heading of its own.
        if (!firstElementNamed(source, 'h1')) title = pageTitleOf(page);
      } else mainContentFallback = true;
      if (located) [mainContent, pageKind] = [reportOf(located, mainContentFallback), located.kind];
      if (tooLittle)
        fallbackReason = `only_main_content kept too little (${located!.text} of ${located!.pageText} characters) to stand for the page; markdown holds the whole page.`;
      const model = options.model === undefined ? this.model : options.model;
      const reading = model && located ? readWithModel(page, located, mainContentFallback, model) : null;
      if (reading?.empty)
        return {
          markdown: '',
          degraded: null,
          mainContentFallback: false,
          mainContent: reading.report,
          pageKind: reading.kind,
          noMainContent: `only_main_content found no main content on this page (${reading.report.evidence[0]}: a bare grid, a sign-in wall); markdown is empty. Ask without only_main_content for the whole page.`,
        };
      if (reading) {
        [source, skip, pageKind, mainContent] = [page.body, reading.skip, reading.kind, reading.report];
        mainContentFallback = reading.report.whole_page;
        fallbackReason = undefined;
        title = reading.keptTitle ? '' : pageTitleOf(page);
      }
    } else if (options.onlyMainContent) {
      const article = this.mainContent.read(page);
      if (article) ({ root: source, baseUrl } = article);
      else mainContentFallback = true;
    }
    let tree: ElementNode | null = null;
    try {
      tree = conversionTreeOf(source, { baseUrl, includeImages, skip });
      const markdown = this.turndown.turndown(tree as unknown as HTMLElement);
      const heading = title ? `# ${escapeMarkdownText(title)}\n\n` : '';
      return { markdown: tidy(heading + markdown), degraded: null, mainContentFallback, mainContent, fallbackReason, pageKind };
    } catch (error) {
      const text = tree ? tree.textContent : textOf(source);
      const reason = error instanceof Error ? error.message.split('\n')[0].slice(0, 200) : 'conversion failed';
      return {
        markdown: text
          .replace(/[ \t]*\n\s*\n\s*/g, '\n\n')
          .replace(/[ \t]+/g, ' ')
          .trim(),
        degraded: reason,
        mainContentFallback,
        mainContent,
        fallbackReason,
        pageKind,
      };
    }
  }
}

/** The page's own <h1> text, else its <title>, on one line (empty when it has neither). */
function pageTitleOf(page: ParsedPage): string {
  const h1 = firstElementNamed(page.body, 'h1');
  const titleElement = page.head ? firstElementNamed(page.head, 'title') : null;
  const text = h1 ? textOf(h1) : (titleElement?.text ?? '');
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

// Located content this small, on a page with this much text, is a fragment, not the page's content.
const TOO_LITTLE_TEXT = 100;
const TOO_LITTLE_PAGE_TEXT = 1_000;

/** The rule that sends a located fragment back to the whole page (pinned by main-content-locator.spec.ts). */
export function keptTooLittle(located: { text: number; pageText: number }): boolean {
  return located.text < TOO_LITTLE_TEXT && located.pageText >= TOO_LITTLE_PAGE_TEXT;
}

function reportOf(located: LocatedContent, wholePage: boolean): MainContentReport {
  return {
    evidence: located.kindEvidence.slice(0, 20),
    confidence: Math.round(located.confidence * 100) / 100,
    characters: wholePage ? located.pageText : located.text,
    page_characters: located.pageText,
    removed: wholePage ? {} : (located.removed as Record<string, number>),
    whole_page: wholePage,
  };
}

/** The first element of a name under root, found without recursion (pages nest tens of thousands deep). */
function firstElementNamed(root: HTMLElementNode, name: string): HTMLElementNode | null {
  for (const el of elementsOf(root)) if (el.rawTagName?.toLowerCase() === name) return el;
  return null;
}

/** `- item` / `3. item` with continuation lines indented to the item's text, as CommonMark nests them. */
function listItem(content: string, node: TurndownService.Node): string {
  const el = node as unknown as ElementNode;
  const parent = el.parentNode;
  let prefix = '- ';
  if (parent?.nodeName === 'OL') {
    const start = Number.parseInt(parent.getAttribute('start') ?? '1', 10);
    prefix = `${(Number.isFinite(start) ? start : 1) + elementIndex(el)}. `;
  }
  const isParagraph = /\n$/.test(content);
  // A task checkbox is followed by the item's own leading space.
  const body =
    content
      .replace(/^\n+/, '')
      .replace(/\n+$/, '')
      .replace(/^(\[[x ]\]) +/, '$1 ') + (isParagraph ? '\n' : '');
  return prefix + body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`) + (el.nextSibling ? '\n' : '');
}

type Rules = {
  array: TurndownService.Rule[];
  blankRule: TurndownService.Rule;
  defaultRule: TurndownService.Rule;
  _keep: unknown[];
  _remove: unknown[];
  forNode(node: ElementNode): TurndownService.Rule;
};

/**
 * turndown picks a node's rule by trying every rule's filter in turn, lower-casing the node's name
 * for each: on a page of thousands of elements that is most of the conversion's allocations. The
 * rules that can match a name are found once per element name instead, in the same order, so the
 * same rule wins. (Relies on turndown 7.2's Rules shape, pinned in package.json; every rule test
 * goes through it.)
 */
function indexRulesByElement(service: TurndownService): void {
  const rules = (service as unknown as { rules: Rules }).rules;
  if (rules._keep.length > 0 || rules._remove.length > 0) throw new Error('keep/remove rules are not indexed');
  const names = (filter: TurndownService.Filter): Set<string> | null =>
    typeof filter === 'string'
      ? new Set([filter.toUpperCase()])
      : Array.isArray(filter)
        ? new Set(filter.map((f) => String(f).toUpperCase()))
        : null;
  const indexed = rules.array.map((rule) => ({ rule, names: names(rule.filter!) }));
  const byName = new Map<string, Array<{ rule: TurndownService.Rule; names: Set<string> | null }>>();
  const options = (service as unknown as { options: TurndownService.Options }).options;
  rules.forNode = (node: ElementNode) => {
    if (node.isBlank) return rules.blankRule;
    let candidates = byName.get(node.nodeName);
    if (!candidates) byName.set(node.nodeName, (candidates = indexed.filter((r) => r.names === null || r.names.has(node.nodeName))));
    for (const { rule, names: matched } of candidates) {
      if (matched !== null || (rule.filter as unknown as (n: ElementNode, o: TurndownService.Options) => boolean).call(rule, node, options))
        return rule;
    }
    return rules.defaultRule;
  };
}

/** Position among the parent's element children (counted backwards: no array per item of a long list). */
function elementIndex(el: ElementNode): number {
  let index = 0;
  for (let n = el.previousSibling; n; n = n.previousSibling) if (n.nodeType === 1) index += 1;
  return index;
}

/**
 * Wraps every rule so that one element a rule cannot handle comes out as its escaped text: the
 * page's other elements still convert.
 */
function guardReplacements(service: TurndownService): void {
  const rules = (
    service as unknown as { rules: { array: TurndownService.Rule[]; blankRule: TurndownService.Rule; defaultRule: TurndownService.Rule } }
  ).rules;
  for (const rule of [...rules.array, rules.blankRule, rules.defaultRule]) {
    const replacement = rule.replacement!;
    rule.replacement = function guarded(this: unknown, content, node, options) {
      try {
        return replacement.call(this, content, node, options);
      } catch {
        const el = node as unknown as ElementNode;
        const text = escapeMarkdownText(el.textContent.replace(/\s+/g, ' ').trim());
        return el.isBlock ? `\n\n${text}\n\n` : ` ${text} `;
      }
    };
  }
}

function tidy(markdown: string): string {
  return markdown
    .replace(/[ \t]+$/gm, (spaces) => (spaces === '  ' ? spaces : ''))
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
