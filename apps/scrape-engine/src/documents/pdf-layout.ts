/**
 * A PDF page's text layer as pdf.js gives it — runs of text, each at a position in a font size — laid
 * out as a reader reads it: runs joined into lines, lines into columns (a gutter no line crosses
 * splits a page's body in two), columns into blocks, blocks told apart as headings (by font size
 * against the document's body size), list items (by their markers) and paragraphs. Pure functions
 * over plain numbers: the reader (pdf-document.ts) feeds them, the tests feed them directly.
 */

/** One run of text: its string, its baseline's left end (PDF units, origin bottom-left), its width and font size. */
export interface TextRun {
  text: string;
  x: number;
  y: number;
  width: number;
  size: number;
  /** A link annotation covering the run, if any. */
  href?: string;
  /** Set in a bold face (the font's name says so): a line all bold, standing alone, is a heading at body size. */
  bold?: boolean;
  /** A footnote's marker in the text (pdf-footnotes.ts): the note's label. */
  note?: string;
}

export interface Line {
  text: string;
  x: number;
  right: number;
  y: number;
  size: number;
  /** The column's left and right edges (set by readingOrder): where a line starts indented, or ends early. */
  left?: number;
  edge?: number;
  /** Runs with their links, in order (for markdown links). */
  runs: TextRun[];
  /** Every run of the line set in a bold face. */
  bold?: boolean;
  /** A table (pdf-tables.ts): its rows of cells, the first its header; the line stands where the table does. */
  table?: string[][];
}

export type Block =
  | { kind: 'table'; rows: string[][]; text: string; markdown: string; /** Where it stands across the page. */ x?: number; right?: number }
  | { kind: 'heading'; level: number; text: string; markdown: string }
  | { kind: 'list-item'; ordered: boolean; text: string; markdown: string }
  | { kind: 'paragraph'; text: string; markdown: string };

const BULLETS = /^[•·▪◦●■□○–—*-]\s*/u;
const ORDERED = /^(\d{1,3}|[a-z])[.)]\s+/i;
/** A bullet at a block's markdown start, escaped there when it is markdown's own (`\*`). */
const MARKDOWN_BULLET = /^\\?[•·▪◦●■□○–—*-]\s*/u;

/**
 * Runs into lines, in the order the file draws them: a run on the baseline of the line being drawn
 * (within half a font size) and near it joins it; anything else starts a line. Most files draw text
 * in reading order (a browser's or a word processor's print does), and that order is kept: sorting
 * by position would interleave what the file already had right. Columns are told apart after
 * (readingOrder); lines drawn in no sensible order (a page drawn bottom first) are sorted there.
 */
export function linesOf(runs: TextRun[]): Line[] {
  const lines: Line[] = [];
  for (const run of runs) {
    if (run.text === '' || (run.text.trim() === '' && run.text !== ' ')) continue;
    const line = lines[lines.length - 1];
    if (line && (sameBaseline(line, run) || raisedBeside(line, run)) && overlapsNot(line, run)) {
      line.runs.push(run);
      line.size = Math.max(line.size, run.size);
      line.x = Math.min(line.x, run.x);
      line.right = Math.max(line.right, run.x + run.width);
    } else lines.push({ text: '', x: run.x, right: run.x + run.width, y: run.y, size: run.size, runs: [run] });
  }
  for (const line of lines) {
    line.runs.sort((a, b) => a.x - b.x);
    line.text = joinRuns(line.runs).trim();
    if (line.runs.every((r) => r.bold || r.text.trim() === '') && !spacedApart(line.runs)) line.bold = true;
  }
  const kept = lines.filter((l) => l.text !== '');
  return drawnInOrder(kept) ? kept : kept.sort((a, b) => b.y - a.y || a.x - b.x);
}

/** Whether two runs (or a line and a run) stand on one baseline: within half the smaller font size (a point at least). */
export function sameBaseline(a: { y: number; size: number }, b: { y: number; size: number }): boolean {
  return Math.abs(a.y - b.y) <= Math.max(1, Math.min(a.size, b.size) * 0.5);
}

/** Whether runs of a line stand further apart than a word's space: a row of cells (a table's bold header), not a heading. */
function spacedApart(runs: TextRun[]): boolean {
  const inked = runs.filter((r) => r.text.trim() !== '');
  return inked.some((run, i) => i > 0 && run.x - (inked[i - 1].x + inked[i - 1].width) > run.size);
}

/** Whether a run is set as a superscript or subscript is beside text of `size`: noticeably smaller. */
export function scriptSized(run: TextRun, size: number): boolean {
  return run.size <= size * 0.85;
}

/**
 * A superscript or a subscript (a note's marker, "m²"): set smaller, right after the line's last
 * run, its baseline shifted by less than the line's height — part of the line, not one of its own.
 */
function raisedBeside(line: Line, run: TextRun): boolean {
  return (
    scriptSized(run, line.size) &&
    Math.abs(run.y - line.y) <= line.size * 0.6 &&
    run.x >= line.right - run.size * 0.5 &&
    run.x - line.right < line.size
  );
}

/** Whether a page's lines go down the page (within each column) more often than they jump back up. */
function drawnInOrder(lines: Line[]): boolean {
  let down = 0;
  let up = 0;
  for (let i = 1; i < lines.length; i += 1) {
    if (lines[i].y < lines[i - 1].y) down += 1;
    else if (lines[i].y > lines[i - 1].y) up += 1;
  }
  return up <= 1 + down * 0.2;
}

/** A run far to the right or left of a line belongs to another column's line on the same baseline, not this one. */
function overlapsNot(line: Line, run: TextRun): boolean {
  const gap = run.x >= line.x ? run.x - line.right : line.x - (run.x + run.width);
  return gap < run.size * 1.5;
}

/**
 * Runs of one line (left to right) as its words: runs apart by more than `space` × the font size are
 * apart by a space (a file may leave the space out and draw the next word further on).
 */
export function joinRuns(runs: TextRun[], space = 0.15): string {
  let text = '';
  let end = Number.NEGATIVE_INFINITY;
  for (const run of runs) {
    const gap = run.x - end;
    if (text !== '' && !/\s$/.test(text) && !/^\s/.test(run.text) && gap > run.size * space) text += ' ';
    text += run.text;
    end = run.x + run.width;
  }
  return text.replace(/\s+/g, ' ');
}

/**
 * A page's lines in reading order: when a vertical gutter in the middle of the page is crossed by
 * no line of a stretch of the page, that stretch is read left column first, then right; lines that
 * span the page (a title over two columns) keep their place.
 */
export function readingOrder(lines: Line[], pageWidth: number): Line[] {
  const gutter = gutterOf(lines, pageWidth);
  if (gutter === null) return withEdges(lines, [lines]);
  withEdges(lines, [
    lines.filter((l) => l.right <= gutter),
    lines.filter((l) => l.x >= gutter),
    lines.filter((l) => l.x < gutter && l.right > gutter),
  ]);
  const ordered: Line[] = [];
  let stretch: Line[] = [];
  const flush = () => {
    ordered.push(...stretch.filter((l) => l.right <= gutter), ...stretch.filter((l) => l.x >= gutter));
    stretch = [];
  };
  for (const line of lines) {
    if (line.x < gutter && line.right > gutter) {
      flush();
      ordered.push(line);
    } else stretch.push(line);
  }
  flush();
  return ordered;
}

/** Each line told its column's edges: the left edge most of its long lines start at, the right edge most of them reach. */
function withEdges(lines: Line[], columns: Line[][]): Line[] {
  for (const column of columns) {
    const long = column.filter((l) => l.text.length >= 20);
    const sample = long.length > 0 ? long : column;
    if (sample.length === 0) continue;
    const left = modeOf(sample.map((l) => Math.round(l.x)));
    const rights = sample.map((l) => l.right).sort((a, b) => a - b);
    const edge = rights[Math.floor(rights.length * 0.9)] ?? rights[rights.length - 1];
    for (const line of column) {
      line.left = left;
      line.edge = edge;
    }
  }
  return lines;
}

function modeOf(values: number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
}

/** The x of a gutter between two columns, or null: a band in the middle third no line crosses, with lines on both sides. */
function gutterOf(lines: Line[], pageWidth: number): number | null {
  if (lines.length < 6) return null;
  const from = pageWidth / 3;
  const to = (2 * pageWidth) / 3;
  const step = 2;
  let best: { x: number; width: number } | null = null;
  let start: number | null = null;
  for (let x = from; x <= to; x += step) {
    const crossed = lines.filter((l) => l.x < x && l.right > x).length;
    // A title or a figure caption may cross; a body of two columns leaves the gutter nearly empty.
    const free = crossed <= Math.max(1, lines.length * 0.1);
    if (free && start === null) start = x;
    if ((!free || x + step > to) && start !== null) {
      const width = x - start;
      if (!best || width > best.width) best = { x: start + width / 2, width };
      start = null;
    }
  }
  if (!best || best.width < 8) return null;
  const left = lines.filter((l) => l.right <= best!.x).length;
  const right = lines.filter((l) => l.x >= best!.x).length;
  return left >= 3 && right >= 3 ? best.x : null;
}

/** The body font size of a document: the size most of its characters are set in. */
export function bodySizeOf(lines: Line[]): number {
  const chars = new Map<number, number>();
  for (const line of lines) {
    const size = Math.round(line.size * 2) / 2;
    chars.set(size, (chars.get(size) ?? 0) + line.text.length);
  }
  let body = 0;
  let most = -1;
  for (const [size, n] of chars)
    if (n > most) {
      most = n;
      body = size;
    }
  return body || 12;
}

/**
 * What makes a line a heading, if anything: a size clearly above the body's (`"14"`), or, at about
 * the body's size, every run in a bold face (`"b11"`: a word processor's third and fourth levels,
 * a browser's h4 and h5). Null for body text.
 */
export function headingKeyOf(line: Line, bodySize: number): string | null {
  if (line.table || line.text.length > 200) return null;
  const size = Math.round(line.size * 2) / 2;
  if (line.size >= bodySize * 1.15) return String(size);
  if (line.bold && line.size >= bodySize * 0.75) return `b${size}`;
  return null;
}

/** The heading levels of a document: each larger size first (level 1), then bold lines by size, at most six. */
export function headingLevelsOf(lines: Line[], bodySize: number): Map<string, number> {
  const keys = [...new Set(lines.map((l) => headingKeyOf(l, bodySize)).filter((k): k is string => k !== null))];
  const sizeOf = (key: string) => Number(key.replace(/^b/, ''));
  keys.sort((a, b) => Number(a.startsWith('b')) - Number(b.startsWith('b')) || sizeOf(b) - sizeOf(a));
  return new Map(keys.slice(0, 6).map((key, i) => [key, i + 1]));
}

/** A page's ordered lines as blocks: lines of one size close together are one block; a heading or a list marker starts a new one. */
export function blocksOf(lines: Line[], bodySize: number, levels: Map<string, number>): Block[] {
  const blocks: Block[] = [];
  let current: { lines: Line[]; level: number | null; bold: boolean } | null = null;
  const flush = () => {
    if (current) blocks.push(blockOf(current.lines, current.level, current.bold));
    current = null;
  };
  for (const line of lines) {
    if (line.table) {
      flush();
      blocks.push({ ...tableBlockOf(line.table), x: line.x, right: line.right });
      continue;
    }
    const found = headingKeyOf(line, bodySize);
    const key = found?.startsWith('b') && !placedAsHeading(line, lines) ? null : found;
    const level = key === null ? null : (levels.get(key) ?? null);
    const previous: Line | undefined = current ? current.lines[current.lines.length - 1] : undefined;
    const gap = previous ? previous.y - line.y : 0;
    const startsItem = BULLETS.test(line.text) || ORDERED.test(line.text);
    // A line that stops well short of its column's edge ends its paragraph (or its list item); a
    // heading's lines may all stop short (centred, or broken for balance).
    const endedEarly =
      level === null && previous !== undefined && previous.edge !== undefined && previous.right < previous.edge - previous.size * 2;
    const continues =
      current !== null &&
      previous !== undefined &&
      current.level === level &&
      gap > 0 &&
      gap <= Math.max(previous.size, line.size) * 1.7 &&
      !startsItem &&
      !endedEarly &&
      Math.abs(line.size - previous.size) < 0.75;
    if (!continues) {
      flush();
      current = { lines: [line], level, bold: key?.startsWith('b') === true };
    } else current!.lines.push(line);
  }
  flush();
  return listedByIndent(blocks);
}

/** A table as GFM: its first row the header, a cell's pipes escaped. */
export function tableBlockOf(rows: string[][]): Extract<Block, { kind: 'table' }> {
  const width = Math.max(...rows.map((row) => row.length));
  const line = (row: string[]) =>
    `| ${Array.from({ length: width }, (_, k) => escapeInline(row[k] ?? '').replace(/\|/g, '\\|')).join(' | ')} |`;
  return {
    kind: 'table',
    rows,
    text: rows.map((row) => row.join('\t')).join('\n'),
    markdown: [line(rows[0]), `| ${Array.from({ length: width }, () => '---').join(' | ')} |`, ...rows.slice(1).map(line)].join('\n'),
  };
}

/**
 * Blocks indented past their column's left edge, two or more in a row, with no marker of their own
 * in the text layer (a browser or a word processor draws bullets as shapes): a list.
 */
function listedByIndent(blocks: Array<Block & { indented?: boolean }>): Block[] {
  return blocks.map((block, i) => {
    const { indented, ...plain } = block;
    const neighbour = blocks[i - 1]?.indented === true || blocks[i + 1]?.indented === true;
    if (!indented || !neighbour || plain.kind !== 'paragraph') return plain;
    return { kind: 'list-item', ordered: false, text: plain.text, markdown: `- ${plain.markdown.replace(/^\\/, '')}` };
  });
}

function blockOf(lines: Line[], level: number | null, bold: boolean): Block & { indented?: boolean } {
  const text = joinLines(lines.map((l) => l.text));
  const markdown = joinLines(lines.map(markdownOf));
  if (level !== null && text.length <= 200 && (!bold || standsAsHeading(lines, text)))
    return { kind: 'heading', level, text, markdown: `${'#'.repeat(level)} ${markdown}` };
  const bullet = BULLETS.exec(text);
  if (bullet)
    return {
      kind: 'list-item',
      ordered: false,
      text: text.slice(bullet[0].length),
      markdown: `- ${markdown.replace(MARKDOWN_BULLET, '')}`,
    };
  const ordered = ORDERED.exec(text);
  if (ordered) return { kind: 'list-item', ordered: true, text, markdown: `${ordered[1]}. ${markdown.replace(ORDERED, '')}` };
  const first = lines[0];
  const indented = first.left !== undefined && first.x > first.left + first.size * 1.2;
  return { kind: 'paragraph', text, markdown: escapeLeading(markdown), ...(indented ? { indented } : {}) };
}

/**
 * A bold line at body size is placed as a heading is: alone on its baseline in its column (a
 * table's header cells stand side by side) and at the column's left edge or centred in it (a
 * header cell stands over its own column, anywhere across the page's).
 */
function placedAsHeading(line: Line, lines: Line[]): boolean {
  if (lines.some((other) => other !== line && other.left === line.left && sameBaseline(other, line))) return false;
  if (line.left === undefined || line.edge === undefined) return true;
  const centred = Math.abs((line.x + line.right) / 2 - (line.left + line.edge) / 2) <= line.size * 1.5;
  return line.x <= line.left + line.size || centred;
}

/**
 * Bold lines at body size are a heading when they read as one: short, not ending as a sentence or a
 * lead-in does, their last line stopping short of the column's edge (a paragraph set in bold, or
 * begun by a bold line, runs to the edge and on).
 */
function standsAsHeading(lines: Line[], text: string): boolean {
  const last = lines[lines.length - 1];
  const short = last.edge === undefined || last.right < last.edge - last.size * 2;
  return text.length <= 120 && !/[.:;,]$/.test(text) && short;
}

/** Lines of one block: a word broken at a line's end by a hyphen is joined again. */
export function joinLines(lines: string[]): string {
  let out = '';
  for (const line of lines) {
    if (out === '') out = line;
    else if (/[a-z]-$/.test(out) && /^[a-z]/.test(line)) out = out.slice(0, -1) + line;
    else out += ` ${line}`;
  }
  return out;
}

/** A line as markdown: runs under one link annotation become one link, a footnote's marker its reference. */
export function markdownOf(line: Line): string {
  const pieces: TextRun[] = [];
  let i = 0;
  const runs = line.runs;
  while (i < runs.length) {
    const { href, note } = runs[i];
    let j = i;
    while (j + 1 < runs.length && runs[j + 1].href === href && note === undefined && runs[j + 1].note === undefined) j += 1;
    const group = runs.slice(i, j + 1);
    const text = joinRuns(group);
    const end = group[group.length - 1].x + group[group.length - 1].width;
    // Spaces at a link's ends go outside its brackets.
    const [, lead, inner, trail] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
    const piece =
      note !== undefined
        ? `[^${note}]`
        : href && inner
          ? `${lead}[${escapeInline(inner)}](${href.replace(/[()\s]/g, encodeURIComponent)})${trail}`
          : escapeInline(text);
    pieces.push({ text: piece, x: group[0].x, y: line.y, width: end - group[0].x, size: group[0].size });
    i = j + 1;
  }
  return joinRuns(pieces).trim();
}

/**
 * A document's text as markdown that reads back as the same text: what would open a tag (`<div`),
 * an entity (`&amp;`), code, emphasis, a strike-through or a link is escaped; an underscore inside a word (snake_case) is not markup in GFM.
 */
export function escapeInline(text: string): string {
  return text.replace(/[\\`*~[\]]|<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\$&');
}

/** A paragraph that would read as markdown syntax at its start (`# `, `> `, `1. `) is escaped. */
function escapeLeading(markdown: string): string {
  return markdown.replace(/^(#{1,6}\s|>|\d+[.)]\s|[-+*]\s)/, '\\$1');
}

/**
 * Lines repeated at the top or bottom of most pages (a running title, "Confidential · page 3") are
 * the document's furniture, not its text: their text with digits as # appears on at least half of
 * the pages (and two), within the top or bottom 10% of the page.
 */
export function furnitureOf(pages: Array<{ lines: Line[]; height: number }>): Set<string> {
  if (pages.length < 2) return new Set();
  const seen = new Map<string, number>();
  for (const page of pages) {
    const keys = new Set(page.lines.filter((l) => l.y > page.height * 0.9 || l.y < page.height * 0.1).map((l) => furnitureKey(l.text)));
    for (const key of keys) seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return new Set([...seen].filter(([, n]) => n >= Math.max(2, Math.ceil(pages.length / 2))).map(([key]) => key));
}

export function furnitureKey(text: string): string {
  return text.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().toLowerCase();
}
