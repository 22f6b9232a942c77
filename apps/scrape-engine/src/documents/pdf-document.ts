import path from 'node:path';
import { importEsm } from '@lib/runtime';
import {
  type Block,
  blocksOf,
  tableBlockOf,
  bodySizeOf,
  furnitureKey,
  furnitureOf,
  headingLevelsOf,
  type Line,
  linesOf,
  readingOrder,
  type TextRun,
} from './pdf-layout';
import {
  DOCUMENT_MAX_DECLARED_PAGES,
  type DocumentPages,
  DocumentUnreadableError,
  type ReadDocument,
  stopBefore,
} from './document-reading';
export { DocumentUnreadableError } from './document-reading';
import { DOCUMENT_OCR_PAGE_CREDITS } from '@lib/contracts';
import type { PageImage, RecognisedLine } from './page-recognition';
import { tablesOf, withTables } from './pdf-tables';
import { type Footnote, footnotesOf } from './pdf-footnotes';

/** What pdf.js is asked for: the little of its API this reader uses. */
interface PdfJs {
  OPS: Record<string, number>;
  getDocument(source: Record<string, unknown>): { promise: Promise<PdfDoc>; destroy(): Promise<void> };
}
interface PdfDoc {
  numPages: number;
  getMetadata(): Promise<{ info?: Record<string, unknown> }>;
  getPage(n: number): Promise<PdfPage>;
  destroy(): Promise<void>;
}
interface PdfPage {
  view: number[];
  getTextContent(): Promise<{ items: Array<{ str?: string; transform?: number[]; width?: number; height?: number; fontName?: string }> }>;
  getAnnotations(): Promise<Array<{ subtype?: string; url?: string; rect?: number[] }>>;
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[][] }>;
  objs: PdfObjects;
  commonObjs: PdfObjects;
  cleanup(): void;
}
interface PdfObjects {
  get(id: string, callback: (data: unknown) => void): void;
  get(id: string): unknown;
  has(id: string): boolean;
}

/** A bold face's name: "ABCDEF+LiberationSerif-Bold", "Arial-BoldMT", "Inter-SemiBold", "Frutiger-Black", "Gothic-Demi". */
const BOLD_FACE = /bold|black|heavy|demi(?!-?light)/i;

/** Characters a page of a scan has at most (a stamp, a page number): below this on every page, the document needs OCR. */
const SCAN_CHARS_PER_PAGE = 20;

let pdfjs: Promise<PdfJs> | null = null;

const PDFJS_ROOT = path.dirname(require.resolve('pdfjs-dist/package.json'));
const PDFJS_CMAPS = `${path.join(PDFJS_ROOT, 'cmaps')}${path.sep}`;
const PDFJS_STANDARD_FONTS = `${path.join(PDFJS_ROOT, 'standard_fonts')}${path.sep}`;

/**
 * A PDF's text layer read into markdown (decision 0039): pdf.js parses the file (never evaluating
 * its JavaScript or fonts as code: isEvalSupported false), each page's text runs are laid out by
 * pdf-layout (lines, columns, blocks), headings are told by font size against the body's, running
 * headers and footers repeated on most pages are dropped, link annotations become markdown links.
 */
export async function readPdf(bytes: Uint8Array, pages: DocumentPages): Promise<ReadDocument> {
  pdfjs ??= importEsm<PdfJs>('pdfjs-dist/legacy/build/pdf.mjs');
  const lib = await pdfjs;
  const task = lib.getDocument({
    // pdf.js transfers (detaches) the buffer it is given: a copy keeps the caller's.
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    // CJK text is set in CID fonts whose codes map to Unicode through Adobe's predefined CMaps:
    // without them pdf.js answers NUL for every character. Read from the installed package.
    cMapUrl: PDFJS_CMAPS,
    cMapPacked: true,
    standardFontDataUrl: PDFJS_STANDARD_FONTS,
    stopAtErrors: false,
    verbosity: 0,
  });
  let doc: PdfDoc;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    const name = (error as { name?: string }).name;
    if (name === 'PasswordException') throw new DocumentUnreadableError('document_encrypted', 'The PDF is encrypted with a password.');
    throw new DocumentUnreadableError('document_corrupt', `The PDF could not be parsed: ${(error as Error).message}`);
  }
  if (doc.numPages > DOCUMENT_MAX_DECLARED_PAGES) {
    await doc.destroy().catch(() => undefined);
    throw new DocumentUnreadableError(
      'document_too_large',
      `The PDF declares ${doc.numPages} pages, more than the ${DOCUMENT_MAX_DECLARED_PAGES} a document may have here.`,
    );
  }
  try {
    return await readOpened(lib, doc, pages);
  } catch (error) {
    // A file that opened but breaks on a page (a malformed stream, a missing object) is corrupt, whatever pdf.js calls it.
    if (error instanceof DocumentUnreadableError) throw error;
    throw new DocumentUnreadableError('document_corrupt', `The PDF could not be read: ${(error as Error).message}`);
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

async function readOpened(lib: PdfJs, doc: PdfDoc, pages: DocumentPages): Promise<ReadDocument> {
  const read: Array<{ n: number; lines: Line[]; height: number; width: number; recognised: boolean }> = [];
  const hrefs = new Set<string>();
  // Each font of the document (pdf.js's id for it) and whether it is a bold face.
  const bold = new Map<string, boolean>();
  let cut: ReadDocument['cut'] = null;
  for (let n = 1; n <= doc.numPages; n += 1) {
    if (!pages.wanted(n)) continue;
    cut = stopBefore(pages, read.length);
    if (cut) break;
    const page = await doc.getPage(n);
    const [x0, y0, x1, y1] = page.view;
    const [content, annotations] = await Promise.all([page.getTextContent(), page.getAnnotations().catch(() => [])]);
    const links = annotations.filter((a) => a.subtype === 'Link' && a.url && a.rect).map((a) => ({ href: a.url!, rect: a.rect! }));
    for (const link of links) if (/^https?:\/\//i.test(link.href) && hrefs.size < 1000) hrefs.add(link.href);
    await learnFaces(page, content.items, bold);
    const runs: TextRun[] = [];
    for (const item of content.items) {
      if (typeof item.str !== 'string' || !item.transform) continue;
      const [a, b, , d, e, f] = item.transform;
      const size = Math.hypot(a, b) || Math.abs(d) || item.height || 0;
      const face = item.fontName !== undefined && bold.get(item.fontName) ? { bold: true } : {};
      runs.push(
        ...linkedParts({ text: item.str, x: e, y: f, width: item.width ?? 0, size, ...face }, links).map((r) => ({
          ...r,
          x: r.x - x0,
          y: r.y - y0,
        })),
      );
    }
    let recognised = false;
    if (pages.recognition && charactersOf(runs) < SCAN_CHARS_PER_PAGE) {
      const image = await pictureOf(lib, page);
      if (image) {
        runs.splice(0, runs.length, ...runsOfRecognised(await pages.recognition.recognise(image), image, x1 - x0, y1 - y0));
        recognised = true;
      }
    }
    const { rest, tables } = tablesOf(runs);
    read.push({ n, lines: withTables(linesOf(rest), tables), height: y1 - y0, width: x1 - x0, recognised });
    page.cleanup();
  }
  const furniture = furnitureOf(read);
  const kept = read.map((page) => ({
    ...page,
    lines: readingOrder(
      page.lines.filter((l) => !(inMargin(l, page.height) && furniture.has(furnitureKey(l.text)))),
      page.width,
    ),
  }));
  const all = kept.flatMap((p) => p.lines);
  const body = bodySizeOf(all);
  const levels = headingLevelsOf(all, body);
  // A page's numbering of its notes may start again: a label met before gets its page's number.
  const labels = new Set<string>();
  const notes: Footnote[] = [];
  const pageBlocks = tablesAcrossPages(
    kept.map((page) => {
      const read = footnotesOf(page.lines, body, page.height, (mark) => {
        const label = labels.has(mark) ? `${mark}-p${page.n}` : mark;
        labels.add(label);
        return label;
      });
      notes.push(...read.notes);
      return { n: page.n, blocks: blocksOf(read.lines, body, levels) };
    }),
  );
  const info: Record<string, unknown> = (await doc.getMetadata().catch(() => ({ info: {} }))).info ?? {};
  const unrecognised = kept.filter((p) => !p.recognised);
  const chars = unrecognised.reduce((sum, p) => sum + p.lines.reduce((n, l) => n + l.text.length, 0), 0);
  const recognised = read.length - unrecognised.length;
  return {
    markdown:
      [
        ...pageBlocks.map((p) => [`<!-- page ${p.n} -->`, ...markdownBlocks(p.blocks)].join('\n\n')),
        ...(notes.length > 0 ? [notes.map((note) => `[^${note.label}]: ${note.markdown}`).join('\n')] : []),
      ].join('\n\n') + '\n',
    text:
      [
        ...pageBlocks.map((p) => p.blocks.map((b) => b.text).join('\n\n')),
        ...(notes.length > 0 ? [notes.map((note) => `[${note.label}] ${note.text}`).join('\n')] : []),
      ].join('\n\n') + '\n',
    html:
      pageBlocks.map((p) => `<section data-page="${p.n}">${p.blocks.map(htmlOf).join('')}</section>`).join('\n') +
      (notes.length > 0
        ? `\n<section data-footnotes>${notes.map((note) => `<p id="fn-${escapeHtml(note.label)}"><sup>${escapeHtml(note.label)}</sup> ${escapeHtml(note.text)}</p>`).join('')}</section>`
        : ''),
    metadata: {
      title: stringOf(info.Title),
      author: stringOf(info.Author),
      created: dateOf(info.CreationDate),
      language: stringOf(info.Language) ?? stringOf(info.Lang),
      page_count: doc.numPages,
    },
    pages: read.map((p) => p.n),
    charged: unrecognised.length + recognised * DOCUMENT_OCR_PAGE_CREDITS,
    recognised,
    cut,
    ocrRequired: unrecognised.length > 0 && chars < SCAN_CHARS_PER_PAGE * unrecognised.length,
    links: [...hrefs],
  };
}

/**
 * A table that runs on from one page to the next, or from one column to the next, is one table: the
 * rows on the next page join the rows before, its header (repeated on each page, as browsers and word processors print it) once,
 * and a row the page broke is one row again.
 */
export function tablesAcrossPages(pages: Array<{ n: number; blocks: Block[] }>): Array<{ n: number; blocks: Block[] }> {
  let last: { page: number; at: number } | null = null;
  for (const [p, page] of pages.entries()) {
    for (let at = 0; at < page.blocks.length; at += 1) {
      const block = page.blocks[at];
      const before = last && pages[last.page].blocks[last.at];
      const adjacent = last !== null && (last.page === p ? last.at === at - 1 : last.at === pages[last.page].blocks.length - 1 && at === 0);
      if (block.kind === 'table' && before?.kind === 'table' && adjacent && before.rows[0].length === block.rows[0].length) {
        const repeated = block.rows[0].join('\t') === before.rows[0].join('\t');
        // On one page, a table goes on in the next column: it stands right of where the one before ends.
        const nextColumn = before.right !== undefined && block.x !== undefined && block.x >= before.right;
        if (repeated || last!.page !== p || nextColumn) {
          pages[last!.page].blocks[last!.at] = {
            ...joinedTable(before.rows, block.rows.slice(repeated ? 1 : 0)),
            // Where the last part stands: a part in the column after it goes on from there.
            x: block.x,
            right: block.right,
          };
          page.blocks.splice(at, 1);
          at -= 1;
          continue;
        }
      }
      last = { page: p, at };
    }
  }
  return pages;
}

function joinedTable(rows: string[][], next: string[][]): Extract<Block, { kind: 'table' }> {
  // A row broken by the page: its first cell ended before, the rest of it goes on here.
  if (next[0]?.[0] === '' && rows.length > 1) {
    const merged = rows[rows.length - 1].map((cell, k) => [cell, next[0][k]].filter((part) => part).join(' '));
    return tableBlockOf([...rows.slice(0, -1), merged, ...next.slice(1)]);
  }
  return tableBlockOf([...rows, ...next]);
}

/**
 * Which of a page's fonts, not met before in the document, are bold faces. pdf.js's text layer
 * names a font by an id only; the font itself (with its name) reaches this side when the page's
 * drawing operators are read, so a page is read for them only when it brings a font not met yet —
 * most documents set every face on their first pages.
 */
async function learnFaces(page: PdfPage, items: Array<{ fontName?: string }>, bold: Map<string, boolean>): Promise<void> {
  const unseen = [...new Set(items.map((item) => item.fontName).filter((id): id is string => id !== undefined && !bold.has(id)))];
  if (unseen.length === 0) return;
  await page.getOperatorList();
  for (const id of unseen) {
    const font = page.commonObjs.has(id) ? (page.commonObjs.get(id) as { name?: unknown } | null) : null;
    bold.set(id, typeof font?.name === 'string' && BOLD_FACE.test(font.name));
  }
}

function charactersOf(runs: TextRun[]): number {
  return runs.reduce((sum, run) => sum + run.text.trim().length, 0);
}

/**
 * The picture a scanned page is: the largest image it paints (a scanner's page is one image over
 * the whole page), decoded by pdf.js; null when the page paints none.
 */
async function pictureOf(lib: PdfJs, page: PdfPage): Promise<PageImage | null> {
  const { fnArray, argsArray } = await page.getOperatorList();
  let largest: PageImage | null = null;
  for (const [i, fn] of fnArray.entries()) {
    let image: unknown;
    if (fn === lib.OPS.paintImageXObject) {
      const id = argsArray[i][0] as string;
      image = await new Promise((resolve) => (id.startsWith('g_') ? page.commonObjs : page.objs).get(id, resolve));
    } else if (fn === lib.OPS.paintInlineImageXObject) image = argsArray[i][0];
    else continue;
    const candidate = image as Partial<PageImage> | null;
    if (!candidate?.data || !candidate.width || !candidate.height || ![1, 2, 3].includes(candidate.kind ?? 0)) continue;
    if (!largest || candidate.width * candidate.height > largest.width * largest.height) largest = candidate as PageImage;
  }
  return largest;
}

/** Recognised lines as the runs a text layer would have given: the picture taken as covering the page. */
export function runsOfRecognised(
  lines: RecognisedLine[],
  image: Pick<PageImage, 'width' | 'height'>,
  width: number,
  height: number,
): TextRun[] {
  const sx = width / image.width;
  const sy = height / image.height;
  return lines.map((line) => ({
    text: line.text,
    x: line.left * sx,
    y: (image.height - line.baseline) * sy,
    width: (line.right - line.left) * sx,
    size: line.height * sy,
  }));
}

/**
 * A run split where a link annotation covers part of it ("Read more at [our pages]."): pdf.js gives a
 * line as one run, the annotation only a rectangle; characters are taken as evenly wide.
 */
export function linkedParts(run: TextRun, links: Array<{ href: string; rect: number[] }>): TextRun[] {
  const link = links.find((l) => run.y >= l.rect[1] - 2 && run.y <= l.rect[3] + 2 && l.rect[0] < run.x + run.width && l.rect[2] > run.x);
  if (!link || run.text.length === 0 || run.width <= 0) return [run];
  const perChar = run.width / run.text.length;
  // Snapped to the nearest word boundaries: an estimate a character off would cut a word.
  const from = nearestBoundary(run.text, Math.round((link.rect[0] - run.x) / perChar), 'start');
  const to = nearestBoundary(run.text, Math.round((link.rect[2] - run.x) / perChar), 'end');
  if (to <= from) return [run];
  const part = (a: number, b: number, href?: string): TextRun[] =>
    b > a
      ? [
          {
            ...run,
            text: run.text.slice(a, b),
            x: run.x + a * perChar,
            width: (b - a) * perChar,
            ...(href ? { href } : {}),
          },
        ]
      : [];
  return [...part(0, from), ...part(from, to, link.href), ...part(to, run.text.length)];
}

function nearestBoundary(text: string, at: number, side: 'start' | 'end'): number {
  const isBoundary = (i: number) =>
    i <= 0 ||
    i >= text.length ||
    (side === 'start' ? /\s/.test(text[i - 1]) && !/\s/.test(text[i]) : !/\s/.test(text[i - 1]) && /[\s.,;:!?)]/.test(text[i]));
  for (let d = 0; d <= 3; d += 1) {
    if (isBoundary(at - d)) return Math.max(0, at - d);
    if (isBoundary(at + d)) return Math.min(text.length, at + d);
  }
  return Math.max(0, Math.min(text.length, at));
}

/** Where running headers and footers are: the top and bottom tenth of the page. */
function inMargin(line: Line, height: number): boolean {
  return line.y > height * 0.9 || line.y < height * 0.1;
}

/** Blocks as markdown: list items of one list together, everything else a paragraph apart. */
function markdownBlocks(blocks: Block[]): string[] {
  const out: string[] = [];
  for (const [i, block] of blocks.entries()) {
    const previous = blocks[i - 1];
    if (block.kind === 'list-item' && previous?.kind === 'list-item' && out.length > 0) out[out.length - 1] += `\n${block.markdown}`;
    else out.push(block.markdown);
  }
  return out;
}

function htmlOf(block: Block): string {
  if (block.kind === 'table') {
    const [head, ...body] = block.rows;
    const row = (cells: string[], tag: 'th' | 'td') => `<tr>${cells.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`;
    return `<table><thead>${row(head, 'th')}</thead><tbody>${body.map((r) => row(r, 'td')).join('')}</tbody></table>`;
  }
  const text = escapeHtml(block.text);
  if (block.kind === 'heading') return `<h${block.level}>${text}</h${block.level}>`;
  if (block.kind === 'list-item') return `<li>${text}</li>`;
  return `<p>${text}</p>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** A PDF date (D:YYYYMMDDHHmmSS+HH'mm') as ISO 8601; null when it is not one. */
export function dateOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz]|[+-]\d{2}'?\d{2}'?)?/.exec(value);
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', zone] = m;
  const offset = !zone || /z/i.test(zone) ? 'Z' : `${zone.slice(0, 3)}:${zone.replace(/'/g, '').slice(3, 5) || '00'}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
