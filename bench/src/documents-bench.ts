/**
 * `npm run bench:documents` (issue 64): PDF to markdown on documents whose true markdown is known,
 * beside the best alternative in the same run. The corpus is made here, once, at work time: every
 * article of the page corpus (PAGE_CORPUS_DIR, ../shared/corpus/pages) becomes its true markdown
 * (pandoc: HTML → GFM), that markdown becomes a page (pandoc: GFM → HTML, in one column and in two)
 * and the page a PDF (Chromium's print, as any browser or word processor would make one). Scored as
 * opendataloader-bench scores: reading-order text similarity (1 − normalised edit distance on the
 * text without markup) and heading structure (headings found at the right level, F1); tables
 * (TEDS) are not scored yet. Speed: pages per second on one core, this reader and the alternative
 * (unpdf: pdf.js's own text extraction, no layout) on the same files.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { distance } from 'fastest-levenshtein';
import { MACHINE_ARGS } from '../../apps/scrape-engine/src/browser/browser-launcher';
import { readPdf } from '../../apps/scrape-engine/src/documents/pdf-document';
import { corpusDirectory, corpusPageNames } from './markdown-quality';

const CACHE = path.resolve(process.cwd(), process.env.DOCUMENT_CORPUS_DIR ?? 'bench/.documents');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LAYOUTS = {
  'one-column': 'body{font-family:serif;font-size:11pt;max-width:none} img{display:none}',
  'two-columns': 'body{font-family:serif;font-size:10pt;columns:2;column-gap:28px} img{display:none} h1{column-span:all}',
} as const;
type Layout = keyof typeof LAYOUTS;

interface Document {
  name: string;
  layout: Layout;
  truth: string;
  pdf: Buffer;
}

/** The corpus: made on first use (pandoc and Chromium), then read from the cache. */
async function corpus(): Promise<Document[]> {
  const names = corpusPageNames(corpusDirectory());
  if (names.length === 0) throw new Error(`page corpus not found at ${corpusDirectory()} (set PAGE_CORPUS_DIR)`);
  fs.mkdirSync(CACHE, { recursive: true });
  const missing = names.filter((name) => !fs.existsSync(path.join(CACHE, `${name}.two-columns.pdf`)));
  if (missing.length > 0) await make(missing);
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
      const truth = pandoc(['-f', 'html', '-t', 'gfm-raw_html', '--wrap=none'], article);
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

function pandoc(args: string[], input: string): string {
  return execFileSync('pandoc', args, { input, maxBuffer: 64 * 1024 * 1024 }).toString('utf8');
}

/** Text without markdown's markup, whitespace collapsed: what reading order is scored on. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|[-*+]|\d+[.)]|>)\s+/gm, '')
    .replace(/[*_`|]+/g, ' ')
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
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

function mean(values: Array<number | null>): number {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? Number.NaN : known.reduce((s, v) => s + v, 0) / known.length;
}

export interface DocumentRow {
  layout: Layout | 'all';
  reader: 'this reader (pdf.js + layout)' | 'unpdf extractText (pdf.js, no layout)';
  documents: number;
  text: number;
  headings: number;
  pagesPerSecond: number;
}

export async function documentsBench(): Promise<DocumentRow[]> {
  const documents = await corpus();
  const { extractText } = (await import('unpdf')) as {
    extractText(data: Uint8Array, o: { mergePages: true }): Promise<{ text: string; totalPages: number }>;
  };
  const rows: DocumentRow[] = [];
  for (const layout of [...(Object.keys(LAYOUTS) as Layout[]), 'all' as const]) {
    const docs = layout === 'all' ? documents : documents.filter((d) => d.layout === layout);
    const ours = { text: [] as number[], headings: [] as Array<number | null>, pages: 0, ms: 0 };
    const theirs = { text: [] as number[], headings: [] as Array<number | null>, pages: 0, ms: 0 };
    for (const doc of docs) {
      let started = performance.now();
      const read = await readPdf(doc.pdf, { wanted: () => true, max: 10_000, deadline: Infinity });
      ours.ms += performance.now() - started;
      ours.pages += read.pages.length;
      ours.text.push(textSimilarity(doc.truth, read.markdown));
      ours.headings.push(headingScore(doc.truth, read.markdown));
      started = performance.now();
      const plain = await extractText(new Uint8Array(doc.pdf), { mergePages: true });
      theirs.ms += performance.now() - started;
      theirs.pages += plain.totalPages;
      theirs.text.push(textSimilarity(doc.truth, plain.text));
      theirs.headings.push(headingScore(doc.truth, plain.text));
    }
    for (const [reader, m] of [
      ['this reader (pdf.js + layout)', ours],
      ['unpdf extractText (pdf.js, no layout)', theirs],
    ] as const)
      rows.push({
        layout,
        reader,
        documents: docs.length,
        text: round(mean(m.text)),
        headings: round(mean(m.headings)),
        pagesPerSecond: Math.round((m.pages / m.ms) * 1000 * 10) / 10,
      });
  }
  return rows;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

if (require.main === module) {
  void documentsBench().then(
    (rows) => {
      console.log('| layout | reader | documents | text (1 − NED) | headings (F1) | pages/s |');
      console.log('|---|---|---|---|---|---|');
      for (const r of rows) console.log(`| ${r.layout} | ${r.reader} | ${r.documents} | ${r.text} | ${r.headings} | ${r.pagesPerSecond} |`);
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
