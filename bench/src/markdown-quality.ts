import fs from 'node:fs';
import path from 'node:path';
import { HTMLElement, parse } from 'node-html-parser';

/**
 * How well a markdown conversion of a real page keeps what matters, measured against the page's
 * main article (`expected.html` of the page corpus, what a reader view extracts) and its
 * source as a browser parses it (domino, a spec-compliant HTML parser, so script and style
 * boundaries are the browser's, not ours):
 *
 * - recall: share of the article's word 3-grams found in the markdown (link targets removed);
 * - headings, links, list items: share of the article's found as such in the markdown;
 * - tables, code blocks: share of the article's data tables (see isDataTable) found as GFM
 *   tables, and of its <pre>s found inside fenced code blocks;
 * - leaks: script/style/template/noscript text found in the markdown; rawTags: HTML tags outside
 *   code; words: the markdown's word count (the token proxy), also as a ratio to the article's.
 */
export interface PageQuality {
  name: string;
  bytes: number;
  recall: number;
  headings: number | null;
  links: number | null;
  listItems: number | null;
  tables: number | null;
  codeBlocks: number | null;
  leaks: number;
  rawTags: number;
  words: number;
  wordsOverArticle: number;
}

/** The URL the corpus pages were saved under (expected.html's links are absolute against it). */
export const CORPUS_PAGE_URL = 'http://fakehost/test/page.html';

export interface CorpusPage {
  name: string;
  source: string;
  expected: string;
}

/**
 * The full page corpus, a benchmark input read in place: PAGE_CORPUS_DIR, or by default
 * ../shared/corpus/pages beside the project (docs/benchmarks.md says where it comes from). Tests
 * use the sample vendored in test/fixtures/page-corpus instead.
 */
export function corpusDirectory(): string {
  return path.resolve(process.cwd(), process.env.PAGE_CORPUS_DIR ?? '../shared/corpus/pages');
}

/** What a benchmark row says when the corpus is not where corpusDirectory() looks. */
export function corpusMissing(): string {
  return `page corpus not found at ${corpusDirectory()} (set PAGE_CORPUS_DIR)`;
}

export function readCorpus(dir = corpusDirectory()): CorpusPage[] {
  return corpusPageNames(dir).map((name) => readCorpusPage(dir, name));
}

/** The corpus's pages by name (a folder with a source.html), in order, without reading them. */
export function corpusPageNames(dir = corpusDirectory()): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => fs.existsSync(path.join(dir, name, 'source.html')))
    .sort();
}

export function readCorpusPage(dir: string, name: string): CorpusPage {
  return {
    name,
    source: fs.readFileSync(path.join(dir, name, 'source.html'), 'utf8'),
    expected: fs.readFileSync(path.join(dir, name, 'expected.html'), 'utf8'),
  };
}

export function measurePage(page: CorpusPage, markdown: string): PageQuality {
  // <pre> parsed as markup (node-html-parser keeps it raw text by default, tags and all).
  const article = parse(page.expected, { comment: false, blockTextElements: { script: true, noscript: true, style: true } });
  const prose = markdownProse(markdown);
  const articleWords = words(article.text);
  const markdownWords = words(prose);
  // Per block of the article: a 3-gram across two blocks is not text anyone wrote.
  const expectedGrams = blocksOf(article).flatMap((block) => trigrams(words(block)));
  const foundGrams = new Set(trigrams(markdownWords));
  const recall = expectedGrams.length === 0 ? 1 : expectedGrams.filter((g) => foundGrams.has(g)).length / expectedGrams.length;

  const lines = markdown.split('\n');
  const headingLines = lines.filter((l) => /^(?:\s*>)*\s*#{1,6} /.test(l)).map((l) => normal(markdownProse(l)));
  const listLines = listItemsOf(lines).map((l) => normal(markdownProse(l)));
  const tableText = gfmTables(lines).map((t) => normal(markdownProse(t)));
  const codeText = fencedBlocks(lines).map(normal);
  const destinations = new Set(linkDestinations(markdown));

  const headings = share(article.querySelectorAll('h1,h2,h3,h4,h5,h6'), (el) => containedIn(normal(el.text), headingLines));
  const links = share(
    // A link inside <pre> is code in markdown (a fenced block has no links).
    article.querySelectorAll('a[href]').filter((a) => /^https?:/i.test(a.getAttribute('href') ?? '') && a.text.trim() && !a.closest('pre')),
    (a) => destinations.has(normalUrl(a.getAttribute('href')!)),
  );
  const listItems = share(article.querySelectorAll('li'), (li) => containedIn(firstWords(li), listLines));
  const tables = share(
    article.querySelectorAll('table').filter((t) => isDataTable(t) && firstCellText(t)),
    (t) => containedIn(normal(firstCellText(t)), tableText),
  );
  const codeBlocks = share(article.querySelectorAll('pre'), (pre) => containedIn(normal(firstLine(pre.text)), codeText));

  return {
    name: page.name,
    bytes: Buffer.byteLength(page.source),
    recall,
    headings,
    links,
    listItems,
    tables,
    codeBlocks,
    leaks: leaksOf(page.source, markdown),
    rawTags: rawTagsOf(markdown),
    words: markdownWords.length,
    wordsOverArticle: articleWords.length === 0 ? 0 : markdownWords.length / articleWords.length,
  };
}

/** Averages per page (a figure a page cannot have, e.g. tables on a page without one, is left out). */
export function summarise(pages: PageQuality[]): Omit<PageQuality, 'name'> & { pages: number } {
  const mean = (pick: (p: PageQuality) => number | null) => {
    const values = pages.map(pick).filter((v): v is number => v !== null);
    return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
  };
  return {
    pages: pages.length,
    bytes: pages.reduce((n, p) => n + p.bytes, 0),
    recall: mean((p) => p.recall)!,
    headings: mean((p) => p.headings),
    links: mean((p) => p.links),
    listItems: mean((p) => p.listItems),
    tables: mean((p) => p.tables),
    codeBlocks: mean((p) => p.codeBlocks),
    leaks: pages.reduce((n, p) => n + p.leaks, 0),
    rawTags: pages.reduce((n, p) => n + p.rawTags, 0),
    words: pages.reduce((n, p) => n + p.words, 0),
    wordsOverArticle: mean((p) => p.wordsOverArticle)!,
  };
}

function share<T>(items: T[], kept: (item: T) => boolean): number | null {
  return items.length === 0 ? null : items.filter(kept).length / items.length;
}

/**
 * The words a reader sees: images (alt text is not page text), link targets, list markers
 * (ordered lists' numbers would count as words) and escapes removed.
 */
export function markdownProse(markdown: string): string {
  return markdown
    .replace(/!\[(?:\\.|[^\]\\])*\]\((?:<[^>]*>|(?:\\.|[^)\\])*)\)/g, ' ')
    .replace(/\]\((?:<[^>]*>|(?:\\.|[^)\\])*)\)/g, ']')
    .replace(/^(?:\s*(?:[-*+]|\d+[.)])\s+)+/gm, '')
    .replace(/\\(.)/g, '$1');
}

// Chinese and Japanese are written without spaces: each character counts as a word.
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu) ?? [];
}

function normal(text: string): string {
  return words(text).join(' ');
}

const BLOCKS = new Set([
  'p',
  'div',
  'li',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'tr',
  'td',
  'th',
  'caption',
  'pre',
  'blockquote',
  'section',
  'article',
  'aside',
  'header',
  'footer',
  'nav',
  'figure',
  'figcaption',
  'br',
  'hr',
  'main',
  'form',
  'fieldset',
  'details',
  'summary',
]);

/** The article's text split at block boundaries. */
function blocksOf(root: HTMLElement): string[] {
  const blocks: string[] = [];
  let current = '';
  const visit = (node: HTMLElement) => {
    for (const child of node.childNodes) {
      if (!(child instanceof HTMLElement)) {
        current += child.text;
        continue;
      }
      const block = BLOCKS.has((child.rawTagName ?? '').toLowerCase());
      if (block) {
        blocks.push(current);
        current = '';
      }
      visit(child);
      if (block) {
        blocks.push(current);
        current = '';
      }
    }
  };
  visit(root);
  blocks.push(current);
  return blocks.filter((b) => b.trim());
}

function trigrams(list: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 2 < list.length; i += 1) out.push(`${list[i]} ${list[i + 1]} ${list[i + 2]}`);
  return out;
}

function containedIn(text: string, haystack: string[]): boolean {
  if (!text) return true;
  return haystack.some((h) => h.includes(text));
}

function firstWords(el: HTMLElement): string {
  // A list item's own first words (before any nested list), at most eight of them.
  const own = el.childNodes
    .filter((n) => !(n instanceof HTMLElement && /^(ul|ol)$/i.test(n.rawTagName ?? '')))
    .map((n) => n.text)
    .join(' ');
  return words(own).slice(0, 8).join(' ');
}

function firstCellText(table: HTMLElement): string {
  const cell = table.querySelectorAll('td,th').find((c) => c.text.trim());
  return cell ? words(cell.text).slice(0, 8).join(' ') : '';
}

/**
 * A table that holds data: two rows or more with two cells or more that have text, and not marked
 * as layout (role=presentation). A one-column table (an image above its caption) is layout, and
 * so is a table that holds tables.
 */
function isDataTable(table: HTMLElement): boolean {
  if (/^(presentation|none)$/i.test(table.getAttribute('role') ?? '')) return false;
  if (table.querySelector('table')) return false;
  const rows = table.querySelectorAll('tr').filter((tr) => tr.closest('table') === table);
  return rows.filter((tr) => tr.querySelectorAll('td,th').filter((c) => c.text.trim()).length >= 2).length >= 2;
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim()) ?? '';
}

function gfmTables(markdown: string[]): string[] {
  // Tables inside block quotes and list items are indented or quoted.
  const lines = markdown.map((l) => l.replace(/^(?:\s*>)*\s*/, ''));
  const tables: string[] = [];
  for (let i = 1; i < lines.length; i += 1) {
    if (!/^\|(?: *:?-{3,}:? *\|)+$/.test(lines[i]) || !lines[i - 1].startsWith('|')) continue;
    let end = i + 1;
    while (end < lines.length && lines[end].startsWith('|')) end += 1;
    tables.push(lines.slice(i - 1, end).join('\n'));
  }
  return tables;
}

/** Each list item's text: its marker line and the lines indented under it (nested items also on their own). */
function listItemsOf(lines: string[]): string[] {
  const items: Array<{ indent: number; text: string[] }> = [];
  let open: Array<{ indent: number; text: string[] }> = [];
  for (const raw of lines) {
    const line = raw.replace(/^(?:\s*>)+ ?/, '');
    const marker = /^(\s*)(?:[-*+]|\d+[.)]) /.exec(line);
    const indent = /^\s*/.exec(line)![0].length;
    if (line.trim()) open = open.filter((item) => indent > item.indent);
    if (marker) {
      const item = { indent: marker[1].length, text: [] as string[] };
      items.push(item);
      open.push(item);
    }
    for (const item of open) item.text.push(line);
  }
  return items.map((item) => item.text.join('\n'));
}

function fencedBlocks(markdown: string[]): string[] {
  // Code blocks inside block quotes and list items are quoted or indented.
  const lines = markdown.map((l) => l.replace(/^(?:\s*>)+ ?/, '').replace(/^\s+(?=`{3,}|~{3,})/, ''));
  const blocks: string[] = [];
  let fence: string | null = null;
  let body: string[] = [];
  for (const line of lines) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      body = [];
    } else if (fence !== null && marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
      blocks.push(body.join('\n'));
      fence = null;
    } else if (fence !== null) body.push(line);
  }
  return blocks;
}

function linkDestinations(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/\]\((<[^>]*>|(?:\\.|[^)\s\\])*)/g))
    out.push(normalUrl(m[1].replace(/^<|>$/g, '').replace(/\\(.)/g, '$1')));
  return out;
}

function normalUrl(url: string): string {
  try {
    return new URL(url.trim(), CORPUS_PAGE_URL).href;
  } catch {
    return url.trim();
  }
}

/** Script/style/template/noscript text (as a browser delimits it) found in the markdown. */
function leaksOf(source: string, markdown: string): number {
  // domino ships no types and no ES module: required where it is used, like the raw-text spec does.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const domino = require('@mixmark-io/domino') as { createDocument(html: string): Document };
  const document = domino.createDocument(source);
  const flat = markdown.replace(/\\(.)/g, '$1').replace(/\s+/g, ' ');
  let leaks = 0;
  for (const tag of ['script', 'style', 'template', 'noscript']) {
    const elements = document.getElementsByTagName(tag);
    for (let i = 0; i < elements.length; i += 1) {
      const text = (
        tag === 'template' ? ((elements[i] as HTMLTemplateElement).content?.textContent ?? '') : (elements[i].textContent ?? '')
      )
        .replace(/\s+/g, ' ')
        .trim();
      // Short or word-only pieces (a noscript's "Please enable JavaScript") also appear as page text.
      if (text.length < 40 || !/[{};=()<>]/.test(text)) continue;
      if (flat.includes(text.slice(0, 40))) leaks += 1;
    }
  }
  return leaks;
}

/** HTML tags (or comments) outside code spans and code blocks. */
function rawTagsOf(markdown: string): number {
  let inFence = false;
  let count = 0;
  for (const line of markdown.split('\n')) {
    if (/^ {0,3}(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const prose = line.replace(/(`+)[\s\S]*?\1/g, '').replace(/\\</g, ' ');
    count += (prose.match(/<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>|<!--/g) ?? []).length;
  }
  return count;
}
