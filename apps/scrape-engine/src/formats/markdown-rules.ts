import type TurndownService from 'turndown';
import { ElementNode, type TreeNode } from './conversion-tree';

/**
 * Our turndown rules, for what real pages hold and turndown's own rules (or turndown-plugin-gfm's)
 * get wrong: every data table as a GFM table (no header row, colspan/rowspan, blocks in cells, no
 * rows at all), every <pre> as a fenced code block, headings and links that stay on one line, GFM
 * strikethrough and task lists. Layout tables (role=presentation, a table that holds tables or
 * headings, a single row or a single column) are not data: their cells come out as blocks.
 */
type Rule = TurndownService.Rule;
type Replacement = (content: string, node: ElementNode) => string;

// Bounds the grid a hostile colspan/rowspan could ask for.
const MAX_SPAN = 50;
const MAX_COLUMNS = 200;

export const MARKDOWN_RULES: Record<string, Rule> = {
  codeBlock: rule('pre', (_content, node) => codeBlock(node)),
  heading: rule(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'], (content, node) => {
    const text = oneLine(content);
    return text ? `\n\n${'#'.repeat(Number(node.nodeName[1]))} ${text}\n\n` : '';
  }),
  link: rule(
    (node) => node.nodeName === 'A' && node.getAttribute('href') !== null,
    (content, node) => link(content, node.getAttribute('href')!),
  ),
  image: rule('img', (_content, node) => {
    const src = node.getAttribute('src');
    return src ? `![${escapeMarkdownText(oneLine(node.getAttribute('alt') ?? ''))}](${linkDestination(src)})` : '';
  }),
  strikethrough: rule(['del', 's', 'strike'], (content) => (content.trim() ? `~~${content}~~` : '')),
  taskListItem: rule(
    (node) => node.nodeName === 'INPUT' && node.getAttribute('type') === 'checkbox' && node.parentNode?.nodeName === 'LI',
    (_content, node) => (node.getAttribute('checked') !== null ? '[x] ' : '[ ] '),
  ),
  tableCell: rule(['th', 'td'], (content, node) => {
    if (tableKind(ownerTable(node)) === 'layout') return `\n\n${content}\n\n`;
    node.cellMarkdown = oneLine(content).replace(/\|/g, '\\|');
    return '';
  }),
  tableSection: rule(['thead', 'tbody', 'tfoot', 'tr'], (content) => `\n\n${content}\n\n`),
  tableCaption: rule('caption', (content) => `\n\n${oneLine(content)}\n\n`),
  table: rule('table', (content, node) => (tableKind(node) === 'layout' ? `\n\n${content}\n\n` : gfmTable(node))),
};

function rule(filter: string | string[] | ((node: ElementNode) => boolean), replacement: Replacement): Rule {
  return {
    filter: (typeof filter === 'function'
      ? (node: HTMLElement) => filter(node as unknown as ElementNode)
      : filter) as TurndownService.Filter,
    replacement: (content: string, node: TurndownService.Node) => replacement(content, node as unknown as ElementNode),
  };
}

function codeBlock(pre: ElementNode): string {
  // The HTML parser drops a newline right after <pre>; trailing newlines are layout.
  const code = pre.textContent.replace(/^\r?\n/, '').replace(/\s+$/, '');
  if (!code.trim()) return '';
  const language =
    languageOf(pre) ??
    (pre.firstChild instanceof ElementNode && pre.firstChild.nodeName === 'CODE' ? languageOf(pre.firstChild) : null) ??
    '';
  const longestRun = Math.max(2, ...(code.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  return `\n\n${fence}${language}\n${code}\n${fence}\n\n`;
}

function languageOf(el: ElementNode): string | null {
  const declared = el.getAttribute('data-lang') ?? el.getAttribute('lang');
  if (declared && /^[\w+#.-]{1,30}$/.test(declared)) return declared;
  const match = /(?:^|\s)(?:language|lang|highlight-source|brush:?)-?([\w+#.-]{1,30})/.exec(el.getAttribute('class') ?? '');
  return match ? match[1] : null;
}

/**
 * A link is one line. A link around blocks (a card: heading and summary) keeps the blocks and
 * links the first line, so the heading stays a heading.
 */
function link(content: string, href: string): string {
  if (/^\s*javascript:/i.test(href)) return content;
  const destination = linkDestination(href);
  if (!content.includes('\n')) {
    const text = content.trim();
    if (!text) return '';
    const [leading, trailing] = [content.match(/^\s*/)![0], content.match(/\s*$/)![0]];
    return `${leading}[${text}](${destination})${trailing}`;
  }
  const lines = content.split('\n');
  const first = lines.findIndex((line) => line.trim() !== '');
  if (first < 0) return '';
  const [, marker, text] = /^(\s*(?:#{1,6} |[-*+] |\d+\. |> )?)(.*)$/.exec(lines[first].trimEnd())!;
  lines[first] = `${marker}[${text}](${destination})`;
  return `\n\n${lines.join('\n').trim()}\n\n`;
}

function linkDestination(url: string): string {
  const escaped = url.replace(/[()<>\s]/g, (c) => (c === ' ' ? '%20' : /\s/.test(c) ? '' : `\\${c}`));
  return escaped;
}

function oneLine(content: string): string {
  return content.replace(/\s*\n+\s*/g, ' ').trim();
}

function ownerTable(node: TreeNode): ElementNode | null {
  for (let n = node.parentNode; n; n = n.parentNode) if (n.nodeName === 'TABLE') return n;
  return null;
}

const HEADINGS = ['H1', 'H2', 'H3', 'H4', 'H5', 'H6'];
const kinds = new WeakMap<ElementNode, 'data' | 'layout'>();

/** Data or layout, decided once per table from its structure. */
function tableKind(table: ElementNode | null): 'data' | 'layout' {
  if (!table) return 'layout';
  let kind = kinds.get(table);
  if (kind) return kind;
  const role = table.getAttribute('role');
  const rows = rowsOf(table);
  const nested = table.getElementsByTagName('TABLE').length > 0;
  const singleColumn = rows.every((row) => cellsOf(row).reduce((n, cell) => n + span(cell, 'colspan'), 0) <= 1);
  // Page layout: an image beside its text, a sidebar beside the article, a heading inside a cell.
  const singleRow = rows.length === 1;
  const headedCells = HEADINGS.some((h) => table.getElementsByTagName(h).length > 0);
  kind = role === 'presentation' || role === 'none' || nested || singleColumn || singleRow || headedCells ? 'layout' : 'data';
  kinds.set(table, kind);
  return kind;
}

function rowsOf(table: ElementNode): ElementNode[] {
  const rows: ElementNode[] = [];
  for (const child of table.children) {
    if (child.nodeName === 'TR') rows.push(child);
    else if (child.nodeName === 'THEAD' || child.nodeName === 'TBODY' || child.nodeName === 'TFOOT')
      rows.push(...child.children.filter((r) => r.nodeName === 'TR'));
  }
  return rows;
}

function cellsOf(row: ElementNode): ElementNode[] {
  return row.children.filter((c) => c.nodeName === 'TD' || c.nodeName === 'TH');
}

function span(cell: ElementNode, attribute: 'colspan' | 'rowspan'): number {
  const value = Number.parseInt(cell.getAttribute(attribute) ?? '1', 10);
  return Number.isFinite(value) && value > 1 ? Math.min(value, MAX_SPAN) : 1;
}

/** Rows × columns with spans laid out as a browser would, the first row as the header. */
function gfmTable(table: ElementNode): string {
  const grid: string[][] = [];
  const pending: number[] = []; // per column: rows still covered by a rowspan above
  for (const row of rowsOf(table)) {
    const line: string[] = [];
    let column = 0;
    const skipCovered = () => {
      while ((pending[column] ?? 0) > 0) {
        pending[column] -= 1;
        line[column] = '';
        column += 1;
      }
    };
    for (const cell of cellsOf(row)) {
      skipCovered();
      if (column >= MAX_COLUMNS) break;
      const [colspan, rowspan] = [span(cell, 'colspan'), span(cell, 'rowspan')];
      for (let i = 0; i < colspan && column < MAX_COLUMNS; i += 1, column += 1) {
        line[column] = i === 0 ? (cell.cellMarkdown ?? '') : '';
        if (rowspan > 1) pending[column] = rowspan - 1;
      }
    }
    skipCovered();
    if (line.some((cell) => cell !== '')) grid.push(Array.from(line, (cell) => cell ?? ''));
  }
  if (grid.length === 0) return '';
  const width = Math.max(...grid.map((r) => r.length));
  const lines = grid.map((r) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`);
  lines.splice(1, 0, `|${' --- |'.repeat(width)}`);
  return `\n\n${lines.join('\n')}\n\n`;
}

// Text that would read as markdown or HTML syntax: escaped so it renders as the words it is.
const NEEDS_ESCAPING = /[\\`*_[\]<&~]|^\s*(?:[-+>#=]|\d+[.)])/;

/**
 * Escapes text so it renders as itself: emphasis and code markers, brackets, line-start block
 * markers, `<` that would open a tag (so `&lt;img&gt;` in a heading stays words) and `&` that would
 * read as an entity. An underscore inside a word is left alone (it cannot open emphasis in GFM).
 */
export function escapeMarkdownText(text: string): string {
  if (!NEEDS_ESCAPING.test(text)) return text;
  return (
    text
      .replace(/[\\`*[\]]/g, '\\$&')
      .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
      .replace(/~~/g, '\\~\\~')
      // At the end of the text too: the next text node may complete the tag or entity.
      .replace(/<(?=[A-Za-z/!?]|$)/g, '\\<')
      .replace(/&(?=#?[A-Za-z0-9]+;|#?[A-Za-z0-9]*$)/g, '\\&')
      .replace(/^(\s*)([-+>=]|#{1,6}(?=\s|$))/, '$1\\$2')
      .replace(/^(\s*\d+)([.)])(?=\s|$)/, '$1\\$2')
  );
}
