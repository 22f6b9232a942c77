/**
 * Scanned PDFs read by OCR (issue 64), on documents whose true markdown is known: the bench's
 * one-column PDFs (documents-bench.ts) rasterised page by page at 150 dpi by pdf.js in Chromium,
 * each page's picture printed back as a page of its own (Chromium's print) — a PDF with no text
 * layer, as a scanner makes one, without a scanner's skew and noise. Read by this service
 * (`ocr: true`: tesseract.js's lines laid out as a text layer, so headings and paragraphs come
 * back) and by tesseract.js's own text of the same pictures (what a client calling it gets), on the
 * same recogniser and data; scored as the other rows are (text 1 − NED, headings F1), with pages/s
 * on one core.
 */
import { CHROMIUM_PROGRAM, PAGE_CORPUS, PANDOC_PROGRAM, requireInputs } from './bench-inputs';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { MACHINE_ARGS } from '../../apps/scrape-engine/src/browser/browser-launcher';
import { PageRecognition, startRecogniser } from '../../apps/scrape-engine/src/documents/page-recognition';
import { readPdf } from '../../apps/scrape-engine/src/documents/pdf-document';
import { headingScore, mean, round, textSimilarity } from './documents-bench';
import { corpusDirectory, corpusPageNames } from './markdown-quality';

const CACHE = path.resolve(process.cwd(), process.env.DOCUMENT_CORPUS_DIR ?? 'bench/.documents');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** How many of the corpus's documents are scanned (OCR takes seconds a page). */
const SAMPLE = Number(process.env.DOCUMENT_OCR_SAMPLE ?? 12);
const DPI = 150;

export interface ScanRow {
  reader: string;
  documents: number;
  pages: number;
  text: number;
  headings: number;
  perSecond: number;
}

interface Scan {
  name: string;
  truth: string;
  pdf: Buffer;
  pictures: Buffer[];
}

export async function scanRows(): Promise<ScanRow[]> {
  const scans = await scanned();
  const recognition = new PageRecognition();
  const ours = { text: [] as number[], headings: [] as Array<number | null>, pages: 0, ms: 0 };
  const theirs = { text: [] as number[], headings: [] as Array<number | null>, pages: 0, ms: 0 };
  const plain = await startRecogniser();
  try {
    // Both recognisers started before the clock: starting is paid once per thread, not per page.
    await recognition.recognise({ width: 300, height: 300, kind: 2, data: new Uint8Array(300 * 300 * 3).fill(255) });
    for (const scan of scans) {
      let started = performance.now();
      const read = await readPdf(scan.pdf, { wanted: () => true, max: 1000, deadline: Infinity, recognition });
      ours.ms += performance.now() - started;
      ours.pages += read.pages.length;
      ours.text.push(textSimilarity(scan.truth, read.markdown));
      ours.headings.push(headingScore(scan.truth, read.markdown));
      started = performance.now();
      const texts: string[] = [];
      for (const picture of scan.pictures) texts.push((await plain.recognize(picture)).data.text);
      theirs.ms += performance.now() - started;
      theirs.pages += scan.pictures.length;
      theirs.text.push(textSimilarity(scan.truth, texts.join('\n')));
      theirs.headings.push(headingScore(scan.truth, texts.join('\n')));
    }
  } finally {
    await recognition.close();
    await plain.terminate();
  }
  const row = (reader: string, m: typeof ours): ScanRow => ({
    reader,
    documents: scans.length,
    pages: m.pages,
    text: round(mean(m.text)),
    headings: round(mean(m.headings)),
    perSecond: Math.round((m.pages / m.ms) * 1000 * 100) / 100,
  });
  return [row('this reader (ocr: true, tesseract.js lines laid out)', ours), row("tesseract.js's own text", theirs)];
}

/** The sample's scans: made on first use from the one-column PDFs, then read from the cache. */
async function scanned(): Promise<Scan[]> {
  const names = corpusPageNames(corpusDirectory())
    .filter((name) => fs.existsSync(path.join(CACHE, `${name}.one-column.pdf`)))
    .slice(0, SAMPLE);
  if (names.length === 0) throw new Error(`no one-column PDFs in ${CACHE}: run npm run bench:documents first`);
  const missing = names.filter((name) => !fs.existsSync(path.join(CACHE, `${name}.scan.pdf`)));
  if (missing.length > 0) await makeScans(missing);
  return names.map((name) => {
    const pictures = fs
      .readdirSync(CACHE)
      .filter((file) => file.startsWith(`${name}.scan-`) && file.endsWith('.png'))
      .sort((a, b) => Number(/-(\d+)\.png$/.exec(a)![1]) - Number(/-(\d+)\.png$/.exec(b)![1]))
      .map((file) => fs.readFileSync(path.join(CACHE, file)));
    return {
      name,
      truth: fs.readFileSync(path.join(CACHE, `${name}.md`), 'utf8'),
      pdf: fs.readFileSync(path.join(CACHE, `${name}.scan.pdf`)),
      pictures,
    };
  });
}

/** A page whose renderPdf(url, scale) draws each page of a PDF on a canvas with pdf.js and answers them as PNG data URLs. */
const RENDER_PAGE = `<!doctype html><title>scan</title><script type="module">
import * as lib from '/pdf.mjs';
lib.GlobalWorkerOptions.workerSrc = '/pdf.worker.mjs';
window.renderPdf = async (url, scale) => {
  const doc = await lib.getDocument(url).promise;
  const out = [];
  for (let n = 1; n <= doc.numPages; n += 1) {
    const page = await doc.getPage(n);
    const viewport = page.getViewport({ scale });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(viewport.width);
    canvas.height = Math.round(viewport.height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    await page.render({ canvas, canvasContext: context, viewport }).promise;
    out.push(canvas.toDataURL('image/png'));
  }
  return out;
};
</script>`;

/** pdf.js draws each page in Chromium (a canvas at 150 dpi); each picture becomes a page of a PDF with no text. */
async function makeScans(names: string[]): Promise<void> {
  const pdfjs = path.dirname(require.resolve('pdfjs-dist/package.json'));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const file =
      url.pathname === '/pdf.mjs'
        ? path.join(pdfjs, 'build', 'pdf.mjs')
        : url.pathname === '/pdf.worker.mjs'
          ? path.join(pdfjs, 'build', 'pdf.worker.mjs')
          : url.pathname.startsWith('/doc/')
            ? path.join(CACHE, `${path.basename(url.pathname)}.one-column.pdf`)
            : null;
    if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(RENDER_PAGE);
    if (!file || !fs.existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.endsWith('.mjs') ? 'text/javascript' : 'application/pdf' }).end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: MACHINE_ARGS, headless: true });
  try {
    for (const name of names) {
      const page = await browser.newPage();
      await page.goto(`${base}/`);
      await page.waitForFunction('typeof window.renderPdf === "function"');
      const pictures = (await page.evaluate(
        (url: string, scale: number) => (window as unknown as { renderPdf(u: string, s: number): Promise<string[]> }).renderPdf(url, scale),
        `${base}/doc/${encodeURIComponent(name)}`,
        DPI / 72,
      )) as string[];
      for (const [i, picture] of pictures.entries())
        fs.writeFileSync(path.join(CACHE, `${name}.scan-${i + 1}.png`), Buffer.from(picture.split(',')[1]!, 'base64'));
      await page.setContent(
        `<!doctype html><html><head><style>@page{size:A4;margin:0}body{margin:0}img{display:block;width:210mm;height:297mm;break-after:page}</style></head><body>${pictures
          .map((src) => `<img src="${src}">`)
          .join('')}</body></html>`,
      );
      fs.writeFileSync(path.join(CACHE, `${name}.scan.pdf`), await page.pdf({ preferCSSPageSize: true, printBackground: true }));
      await page.close();
    }
  } finally {
    await browser.close();
    server.close();
  }
}

/** `npm run bench`'s rows: each reader's scores and pages/s on the scans; one row saying what is missing when they cannot be made. */
export async function scanBenchRows(): Promise<Array<{ figure: string; value: number | null; detail: string }>> {
  try {
    return (await scanRows()).map((r) => ({
      figure: `documents: scanned PDF (150 dpi), ${r.reader} — text (1 − NED)`,
      value: r.text,
      detail: `headings F1 ${r.headings}, ${r.perSecond} pages/s on one core; ${r.documents} documents, ${r.pages} pages`,
    }));
  } catch (error) {
    return [
      {
        figure: 'documents: scanned PDF',
        value: null,
        detail: `not measured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      },
    ];
  }
}

if (require.main === module && requireInputs('the scan bench (npm run bench:documents)', [PAGE_CORPUS, PANDOC_PROGRAM, CHROMIUM_PROGRAM])) {
  void (async () => {
    console.log('| scans | reader | documents | pages | text (1 − NED) | headings (F1) | pages/s |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of await scanRows())
      console.log(`| 150 dpi | ${r.reader} | ${r.documents} | ${r.pages} | ${r.text} | ${r.headings} | ${r.perSecond} |`);
  })().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
