/**
 * `npm run bench:documents` (issue 64): PDF to markdown on documents whose true markdown is known,
 * beside the best alternative in the same run. The corpus is made here, once, at work time: every
 * article of the page corpus (PAGE_CORPUS_DIR, ../shared/corpus/pages) becomes its true markdown
 * (pandoc: HTML → GFM), that markdown becomes a page (pandoc: GFM → HTML, in one column and in two)
 * and the page a PDF (Chromium's print, as any browser or word processor would make one). Scored as
 * opendataloader-bench scores: reading-order text similarity (1 − normalised edit distance on the
 * text without markup), heading structure (headings found at the right level, F1) and table
 * structure (TEDS, table-structure.ts). Speed: pages per second on one core, this reader and the
 * alternative (unpdf: pdf.js's own text extraction, no layout) on the same files.
 *
 * The same truths become DOCX, ODT, EPUB and PPTX (pandoc), and the articles with tables a
 * workbook (exceljs, a sheet per table): each read by this service's reader and by the best
 * alternative (mammoth for DOCX; officeparser's own markdown for the OpenDocument, EPUB and
 * slides; officeparser for XLSX). And one 500-page PDF (every truth, printed as one file) is read
 * in a process of its own by each PDF reader, for its time and its peak memory.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { distance } from 'fastest-levenshtein';
import { MACHINE_ARGS } from '../../apps/scrape-engine/src/browser/browser-launcher';
import { readDocument } from '../../apps/scrape-engine/src/documents/document-reader';
import { readPdf } from '../../apps/scrape-engine/src/documents/pdf-document';
import { CHROMIUM_PROGRAM, PAGE_CORPUS, PANDOC_PROGRAM, requireInputs } from './bench-inputs';
import { cellText, markdownTables, tableScore } from './table-structure';
import { corpusDirectory, corpusPageNames } from './markdown-quality';

const CACHE = path.resolve(process.cwd(), process.env.DOCUMENT_CORPUS_DIR ?? 'bench/.documents');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LAYOUTS = {
  'one-column': 'body{font-family:serif;font-size:11pt;max-width:none} img{display:none}',
  'two-columns': 'body{font-family:serif;font-size:10pt;columns:2;column-gap:28px} img{display:none} h1{column-span:all}',
} as const;
type Layout = keyof typeof LAYOUTS;
/**
 * The made tables are printed as an unstyled HTML table prints (a browser's default: 2 px between
 * cells, which pdf.js's text layer joins with a space, as it does words) and, besides, with the
 * padding a word processor or a styled page gives cells.
 */
const TABLE_LAYOUTS = { ...LAYOUTS, 'one-column, padded cells': `${LAYOUTS['one-column']} th,td{padding:2px 8px}` } as const;
type TableLayout = keyof typeof TABLE_LAYOUTS;

interface Document {
  name: string;
  layout: Layout;
  truth: string;
  pdf: Buffer;
}

/** The formats made from the truths besides PDF, each with the extension pandoc writes. */
const OFFICE_FORMATS = ['docx', 'odt', 'epub', 'pptx'] as const;
type OfficeFormat = (typeof OFFICE_FORMATS)[number] | 'xlsx';

/** The corpus: made on first use (pandoc and Chromium), then read from the cache. */
async function corpus(): Promise<Document[]> {
  const names = corpusPageNames(corpusDirectory());
  if (names.length === 0) throw new Error(`page corpus not found at ${corpusDirectory()} (set PAGE_CORPUS_DIR)`);
  fs.mkdirSync(CACHE, { recursive: true });
  const missing = names.filter((name) => !fs.existsSync(path.join(CACHE, `${name}.two-columns.pdf`)));
  if (missing.length > 0) await make(missing);
  const officeMissing = names.filter((name) => !fs.existsSync(path.join(CACHE, `${name}.office`)));
  if (officeMissing.length > 0) await makeOffice(officeMissing);
  return names.flatMap((name) =>
    (Object.keys(LAYOUTS) as Layout[]).map((layout) => ({
      name,
      layout,
      truth: fs.readFileSync(path.join(CACHE, `${name}.md`), 'utf8'),
      pdf: fs.readFileSync(path.join(CACHE, `${name}.${layout}.pdf`)),
    })),
  );
}

async function make(names: string[]): Promise<void> {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: MACHINE_ARGS, headless: true });
  try {
    for (const name of names) {
      const article = fs.readFileSync(path.join(corpusDirectory(), name, 'expected.html'), 'utf8');
      // The article's text and structure only: wrappers unwrapped, images dropped (their alt text would
      // come back as a caption in some formats and not in others).
      const truth = pandoc(['-f', 'html', '-t', 'gfm-raw_html', '--wrap=none', '--lua-filter', truthFilter()], article);
      fs.writeFileSync(path.join(CACHE, `${name}.md`), truth);
      for (const [layout, css] of Object.entries(LAYOUTS)) {
        const body = pandoc(['-f', 'gfm', '-t', 'html5'], truth);
        const page = await browser.newPage();
        await page.setContent(`<!doctype html><html><head><meta charset="utf-8"><style>${css}</style></head><body>${body}</body></html>`);
        fs.writeFileSync(
          path.join(CACHE, `${name}.${layout}.pdf`),
          await page.pdf({ format: 'A4', margin: { top: '50px', bottom: '50px', left: '50px', right: '50px' } }),
        );
        await page.close();
      }
    }
  } finally {
    await browser.close();
  }
}

/** A workbook of the truth's tables, a sheet each (none: no file). */
async function workbookOf(truth: string, file: string): Promise<void> {
  const tables = markdownTables(truth).map((table) => table.map((row) => row.map(cellText)));
  if (tables.length === 0) return;
  const ExcelJS = (await import('exceljs')).default;
  const book = new ExcelJS.Workbook();
  for (const [i, table] of tables.entries()) book.addWorksheet(`Table ${i + 1}`).addRows(table);
  await book.xlsx.writeFile(file);
}

/** A pandoc filter for the truths: divs and spans unwrapped, images and raw HTML dropped. */
function truthFilter(): string {
  const file = path.join(CACHE, 'truth.lua');
  if (!fs.existsSync(file))
    fs.writeFileSync(
      file,
      [
        'function Div(el) return el.content end',
        'function Span(el) return el.content end',
        'function Image(el) return {} end',
        'function RawBlock(el) return {} end',
        'function RawInline(el) return {} end',
        '',
      ].join('\n'),
    );
  return file;
}

/** The truth in every other format: DOCX, ODT, EPUB, PPTX by pandoc, its tables as a workbook (a marker file says it is made). */
async function makeOffice(names: string[]): Promise<void> {
  // Images left out (pandoc would fetch them to embed; the scores are on text): a filter drops them.
  const noImages = path.join(CACHE, 'no-images.lua');
  if (!fs.existsSync(noImages)) fs.writeFileSync(noImages, 'function Image(el) return {} end\n');
  for (const name of names) {
    const truth = fs.readFileSync(path.join(CACHE, `${name}.md`), 'utf8');
    for (const format of OFFICE_FORMATS) {
      try {
        // No title: pandoc would set one above the text as a heading the truth does not have.
        execFileSync(
          'pandoc',
          ['-f', 'gfm', '--lua-filter', noImages, '-o', path.join(CACHE, `${name}.${format}`), '--metadata', `pagetitle=${name}`],
          {
            input: truth,
            stdio: ['pipe', 'ignore', 'ignore'],
          },
        );
      } catch {
        // pandoc gives up on a few pages (an image path it insists on opening): that format goes without them.
      }
    }
    await workbookOf(truth, path.join(CACHE, `${name}.xlsx`));
    fs.writeFileSync(path.join(CACHE, `${name}.office`), '');
  }
}

function pandoc(args: string[], input: string): string {
  return execFileSync('pandoc', args, { input, maxBuffer: 64 * 1024 * 1024 }).toString('utf8');
}

/** Text without markdown's markup, whitespace collapsed: what reading order is scored on. */
export function plainText(markdown: string): string {
  return (
    markdown
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/^\s{0,3}(#{1,6}|[-*+]|\d+[.)]|>)\s+/gm, '')
      // Escapes first (GFM's: `\*`, `\<`), so that an escaped character counts as the character.
      .replace(/\\([\\`*_{}[\]()#+\-.!|<>])/g, '$1')
      .replace(/[*_`|]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .toLowerCase()
  );
}

/** 1 − normalised edit distance (opendataloader-bench's NID): 1 is the same text in the same order. */
export function textSimilarity(truth: string, got: string): number {
  const a = plainText(truth);
  const b = plainText(got);
  if (a.length === 0 && b.length === 0) return 1;
  return 1 - distance(a, b) / Math.max(a.length, b.length);
}

/** Headings as (level, text): F1 of those found at the same relative level; 1 when neither has any. */
export function headingScore(truth: string, got: string): number | null {
  const headings = (md: string) => {
    const found = [...md.matchAll(/^(#{1,6})\s+(.+)$/gm)].map((m) => ({ level: m[1].length, text: plainText(m[2]) }));
    const levels = [...new Set(found.map((h) => h.level))].sort();
    return found.map((h) => `${levels.indexOf(h.level)}:${h.text}`);
  };
  const a = headings(truth);
  const b = headings(got);
  if (a.length === 0) return null;
  const left = [...a];
  let hit = 0;
  for (const h of b) {
    const i = left.indexOf(h);
    if (i !== -1) {
      hit += 1;
      left.splice(i, 1);
    }
  }
  const precision = b.length === 0 ? 0 : hit / b.length;
  const recall = hit / a.length;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

export function mean(values: Array<number | null>): number {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? Number.NaN : known.reduce((s, v) => s + v, 0) / known.length;
}

export interface DocumentRow {
  format: 'pdf' | OfficeFormat;
  layout: Layout | 'all' | 'flowing' | `${TableLayout}, tables`;
  reader: string;
  documents: number;
  text: number;
  headings: number;
  tables: number;
  /** Pages per second for PDF, documents per second for the other formats. */
  perSecond: number;
}

type PdfText = (data: Uint8Array, o: { mergePages: true }) => Promise<{ text: string; totalPages: number }>;

/** PDFs with their truths read by this reader and by unpdf, one row each: the three scores and pages/s. */
async function pdfRows(
  layout: DocumentRow['layout'],
  docs: Array<{ truth: string; pdf: Buffer }>,
  extractText: PdfText,
): Promise<DocumentRow[]> {
  const tally = () => ({ text: [] as number[], headings: [] as Array<number | null>, tables: [] as Array<number | null>, pages: 0, ms: 0 });
  const ours = tally();
  const theirs = tally();
  const score = (m: typeof ours, truth: string, markdown: string) => {
    m.text.push(textSimilarity(truth, markdown));
    m.headings.push(headingScore(truth, markdown));
    m.tables.push(tableScore(truth, markdown));
  };
  for (const doc of docs) {
    let started = performance.now();
    const read = await readPdf(doc.pdf, { wanted: () => true, max: 10_000, deadline: Infinity });
    ours.ms += performance.now() - started;
    ours.pages += read.pages.length;
    score(ours, doc.truth, read.markdown);
    started = performance.now();
    const plain = await extractText(new Uint8Array(doc.pdf), { mergePages: true });
    theirs.ms += performance.now() - started;
    theirs.pages += plain.totalPages;
    score(theirs, doc.truth, plain.text);
  }
  return (
    [
      ['this reader (pdf.js + layout)', ours],
      ['unpdf extractText (pdf.js, no layout)', theirs],
    ] as const
  ).map(([reader, m]) => ({
    format: 'pdf',
    layout,
    reader,
    documents: docs.length,
    text: round(mean(m.text)),
    headings: round(mean(m.headings)),
    tables: round(mean(m.tables)),
    perSecond: Math.round((m.pages / m.ms) * 1000 * 10) / 10,
  }));
}

export async function documentsBench(): Promise<DocumentRow[]> {
  const documents = await corpus();
  const { extractText } = (await import('unpdf')) as { extractText: PdfText };
  const rows: DocumentRow[] = [];
  for (const layout of [...(Object.keys(LAYOUTS) as Layout[]), 'all' as const])
    rows.push(...(await pdfRows(layout, layout === 'all' ? documents : documents.filter((d) => d.layout === layout), extractText)));
  const made = path.join(CACHE, `tables-${TABLE_DOCUMENTS - 1}.${fileOf('one-column, padded cells')}.pdf`);
  if (!fs.existsSync(made)) await makeTables(documents);
  for (const layout of Object.keys(TABLE_LAYOUTS) as TableLayout[]) {
    const tables = Array.from({ length: TABLE_DOCUMENTS }, (_, i) => ({
      truth: fs.readFileSync(path.join(CACHE, `tables-${i}.md`), 'utf8'),
      pdf: fs.readFileSync(path.join(CACHE, `tables-${i}.${fileOf(layout)}.pdf`)),
    }));
    rows.push(...(await pdfRows(`${layout}, tables`, tables, extractText)));
  }
  return [...rows, ...(await officeRows(documents.filter((d) => d.layout === 'one-column')))];
}

/** A layout's part of a file name: "one-column, padded cells" → "one-column-padded-cells". */
function fileOf(layout: TableLayout): string {
  return layout.replace(/[^a-z]+/g, '-');
}

/** How many tables the table corpus holds: the page corpus's articles have too few (8) to score tables on. */
const TABLE_DOCUMENTS = 60;

/**
 * Tables whose truth is known, printed as the articles are: each a table of 2–6 columns and 3–12
 * rows of the articles' own words (a cell 1–14 words: some wrap, a fifth figures), between two
 * paragraphs, in one column and in two (and padded, in one); made once (seeded, so the same every run), scored beside unpdf.
 */
async function makeTables(documents: Document[]): Promise<void> {
  const words = documents
    .filter((d) => d.layout === 'one-column')
    .flatMap((d) => plainText(d.truth).split(' '))
    .filter((w) => /^[a-z][a-z'-]{1,14}$/.test(w));
  let seed = 64;
  // A small linear congruential generator: the same tables on every machine.
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = (n: number) => Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(' ');
  const cell = () => (next() < 0.2 ? String(Math.floor(next() * 100000) / 100) : pick(1 + Math.floor(next() * (next() < 0.3 ? 14 : 4))));
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: MACHINE_ARGS, headless: true });
  try {
    for (let i = 0; i < TABLE_DOCUMENTS; i += 1) {
      const width = 2 + Math.floor(next() * 5);
      const height = 3 + Math.floor(next() * 10);
      const header = Array.from({ length: width }, () => pick(1 + Math.floor(next() * 2)).replace(/^./, (c) => c.toUpperCase()));
      const body = Array.from({ length: height }, () => Array.from({ length: width }, cell));
      const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
      const truth = [
        `# ${pick(3).replace(/^./, (c) => c.toUpperCase())}`,
        `${pick(40)}.`,
        [line(header), line(header.map(() => '---')), ...body.map(line)].join('\n'),
        `${pick(30)}.`,
        '',
      ].join('\n\n');
      fs.writeFileSync(path.join(CACHE, `tables-${i}.md`), truth);
      const html = pandoc(['-f', 'gfm', '-t', 'html5'], truth);
      for (const [layout, css] of Object.entries(TABLE_LAYOUTS)) {
        const page = await browser.newPage();
        await page.setContent(`<!doctype html><html><head><meta charset="utf-8"><style>${css}</style></head><body>${html}</body></html>`);
        fs.writeFileSync(
          path.join(CACHE, `tables-${i}.${fileOf(layout as TableLayout)}.pdf`),
          await page.pdf({ format: 'A4', margin: { top: '50px', bottom: '50px', left: '50px', right: '50px' } }),
        );
        await page.close();
      }
    }
  } finally {
    await browser.close();
  }
}

export interface LongPdfRow {
  reader: string;
  pages: number;
  seconds: number;
  peakRssMb: number;
  /** The process's peak with the reader loaded, before reading. */
  loadedRssMb: number;
}

/** One long PDF (the truths one after another, printed as one file, ≥ 500 pages), read by each reader in a process of its own. */
export async function longPdfRows(): Promise<LongPdfRow[]> {
  const file = path.join(CACHE, 'long.pdf');
  if (!fs.existsSync(file)) {
    const names = corpusPageNames(corpusDirectory());
    const body = names
      .map((name) => pandoc(['-f', 'gfm', '-t', 'html5'], fs.readFileSync(path.join(CACHE, `${name}.md`), 'utf8')))
      .join('\n');
    const puppeteer = (await import('puppeteer-core')).default;
    const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: MACHINE_ARGS, headless: true });
    try {
      const page = await browser.newPage();
      // Three copies of every truth: past 500 pages at this type size.
      await page.setContent(
        `<!doctype html><html><head><meta charset="utf-8"><style>${LAYOUTS['one-column']}</style></head><body>${body}${body}${body}</body></html>`,
        { timeout: 0 },
      );
      fs.writeFileSync(
        file,
        await page.pdf({ format: 'A4', margin: { top: '50px', bottom: '50px', left: '50px', right: '50px' }, timeout: 0 }),
      );
    } finally {
      await browser.close();
    }
  }
  const script = path.join(__dirname, 'document-memory.js');
  return (['ours', 'unpdf'] as const).map((reader) => {
    const out = JSON.parse(execFileSync(process.execPath, [script, reader, file], { encoding: 'utf8', maxBuffer: 1024 * 1024 })) as {
      pages: number;
      ms: number;
      peak_rss_mb: number;
      loaded_rss_mb: number;
    };
    return {
      reader: reader === 'ours' ? 'this reader (pdf.js + layout)' : 'unpdf extractText (pdf.js, no layout)',
      pages: out.pages,
      seconds: Math.round(out.ms / 100) / 10,
      peakRssMb: out.peak_rss_mb,
      loadedRssMb: out.loaded_rss_mb,
    };
  });
}

type Reader = (bytes: Buffer) => Promise<string>;

/** Every format made from the truths, read by this service's reader and the alternative. */
async function officeRows(truths: Document[]): Promise<DocumentRow[]> {
  const mammoth = (await import('mammoth')).default;
  const TurndownService = (await import('turndown')).default;
  // Untyped (no declarations published): named through a variable so the import is typed by the cast.
  const gfmPlugin = 'turndown-plugin-gfm';
  const { gfm } = (await import(gfmPlugin)) as { gfm: Parameters<InstanceType<typeof TurndownService>['use']>[0] };
  const turndown = new TurndownService({ headingStyle: 'atx', bulletListMarker: '-' });
  turndown.use(gfm);
  const { parseOffice } = await import('officeparser');
  const officeparserMarkdown: Reader = async (bytes) =>
    (await (await parseOffice(bytes, { ignoreComments: true })).to('md', { generateIds: false, includeFormatting: false })).value as string;
  const everyPage = { wanted: () => true, max: 10_000, deadline: Infinity };
  const ours =
    (format: OfficeFormat): Reader =>
    async (bytes) =>
      (await readDocument(format, bytes, everyPage)).markdown;
  const alternatives: Record<OfficeFormat, [string, Reader]> = {
    docx: ['mammoth → turndown (GFM)', async (bytes) => turndown.turndown((await mammoth.convertToHtml({ buffer: bytes })).value)],
    odt: ["officeparser's own markdown", officeparserMarkdown],
    epub: ["officeparser's own markdown", officeparserMarkdown],
    pptx: ["officeparser's own markdown", officeparserMarkdown],
    xlsx: ["officeparser's own markdown", officeparserMarkdown],
  };
  const rows: DocumentRow[] = [];
  for (const format of [...OFFICE_FORMATS, 'xlsx'] as const) {
    const files = truths
      .map((doc) => ({ doc, file: path.join(CACHE, `${doc.name}.${format}`) }))
      .filter(({ file }) => fs.existsSync(file))
      .map(({ doc, file }) => ({
        // A workbook holds the truth's tables only: they are its truth.
        truth:
          format === 'xlsx'
            ? markdownTables(doc.truth)
                .map((table, i) => `## Table ${i + 1}\n\n${gfmTable(table.map((row) => row.map(cellText)))}`)
                .join('\n\n')
            : doc.truth,
        bytes: fs.readFileSync(file),
      }));
    const reader = format === 'xlsx' ? 'this reader (exceljs)' : 'this reader (officeparser AST → markdown)';
    for (const [name, read] of [[reader, ours(format)], alternatives[format]] as const) {
      const m = { text: [] as number[], headings: [] as Array<number | null>, tables: [] as Array<number | null>, ms: 0 };
      for (const { truth, bytes } of files) {
        const started = performance.now();
        const markdown = await read(bytes).catch(() => '');
        m.ms += performance.now() - started;
        m.text.push(textSimilarity(truth, markdown));
        m.headings.push(headingScore(truth, markdown));
        m.tables.push(tableScore(truth, markdown));
      }
      rows.push({
        format,
        layout: 'flowing',
        reader: name,
        documents: files.length,
        text: round(mean(m.text)),
        headings: round(mean(m.headings)),
        tables: round(mean(m.tables)),
        perSecond: Math.round((files.length / m.ms) * 1000 * 10) / 10,
      });
    }
  }
  return rows;
}

function gfmTable(table: string[][]): string {
  const width = Math.max(...table.map((row) => row.length));
  const line = (row: string[]) => `| ${Array.from({ length: width }, (_, i) => row[i] ?? '').join(' | ')} |`;
  return [line(table[0] ?? []), `| ${Array.from({ length: width }, () => '---').join(' | ')} |`, ...table.slice(1).map(line)].join('\n');
}

export function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/**
 * `npm run bench`'s rows: each format's three scores and speed beside the alternative's, and the
 * long PDF's time and peak memory; one row saying what is missing when the corpus, pandoc or
 * Chromium is not there.
 */
export async function documentRows(): Promise<Array<{ figure: string; value: number | null; detail: string }>> {
  try {
    const rows = await documentsBench();
    const long = await longPdfRows();
    return [
      ...rows.map((r) => ({
        figure: `documents: ${r.format}${r.format === 'pdf' ? ` (${r.layout})` : ''}, ${r.reader} — text (1 − NED)`,
        value: r.text,
        detail: `headings F1 ${r.headings}, tables TEDS ${r.tables}, ${r.perSecond} ${r.format === 'pdf' ? 'pages' : 'documents'}/s on one core; ${r.documents} documents`,
      })),
      ...long.map((r) => ({
        figure: `documents: a ${r.pages}-page PDF, ${r.reader} — peak RSS (MB)`,
        value: r.peakRssMb,
        detail: `${r.seconds} s (${Math.round((r.pages / r.seconds) * 10) / 10} pages/s); ${r.loadedRssMb} MB before reading, in a process of its own`,
      })),
    ];
  } catch (error) {
    return [
      {
        figure: 'documents',
        value: null,
        detail: `not measured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)} (needs PAGE_CORPUS_DIR, pandoc and Chromium)`,
      },
    ];
  }
}

if (require.main === module && requireInputs('npm run bench:documents', [PAGE_CORPUS, PANDOC_PROGRAM, CHROMIUM_PROGRAM])) {
  void (async () => {
    const rows = await documentsBench();
    console.log('| format | layout | reader | documents | text (1 − NED) | headings (F1) | tables (TEDS) | pages/s (PDF), documents/s |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of rows)
      console.log(
        `| ${r.format} | ${r.layout} | ${r.reader} | ${r.documents} | ${r.text} | ${r.headings} | ${r.tables} | ${r.perSecond} |`,
      );
    console.log('\n| long PDF reader | pages | seconds | pages/s | peak RSS (MB) | RSS before reading (MB) |');
    console.log('|---|---|---|---|---|---|');
    for (const r of await longPdfRows())
      console.log(
        `| ${r.reader} | ${r.pages} | ${r.seconds} | ${Math.round((r.pages / r.seconds) * 10) / 10} | ${r.peakRssMb} | ${r.loadedRssMb} |`,
      );
  })().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
