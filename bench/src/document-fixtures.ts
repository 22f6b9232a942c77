/**
 * Makes the documents of test/fixtures/documents (work time only: the tests read the committed
 * files): the PDFs from the HTML beside them with the system Chromium's print to PDF; DOCX, PPTX,
 * ODT, EPUB and RTF from price-list.md with pandoc (Debian's); the workbook with exceljs. After
 * changing a source:
 *   node scripts/build.js && node dist/bench/src/document-fixtures.js
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import ExcelJS from 'exceljs';
import path from 'node:path';
import puppeteer, { type PDFOptions } from 'puppeteer-core';
import { MACHINE_ARGS } from '../../apps/scrape-engine/src/browser/browser-launcher';

const DIR = path.resolve(process.cwd(), 'test/fixtures/documents');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Per page: print options beyond A4 (a running header and footer, as reports have). */
const OPTIONS: Record<string, PDFOptions> = {
  'report.html': {
    displayHeaderFooter: true,
    headerTemplate: '<div style="font-size:9px;width:100%;text-align:center">Quarterly report — ACME Corp</div>',
    footerTemplate: '<div style="font-size:9px;width:100%;text-align:center">Confidential · page <span class="pageNumber"></span></div>',
    margin: { top: '60px', bottom: '60px', left: '50px', right: '50px' },
  },
};

/** price-list.md in each format pandoc writes (a presentation: a slide per heading). */
function office(): void {
  for (const format of ['docx', 'pptx', 'odt', 'epub', 'rtf']) {
    const out = path.join(DIR, `price-list.${format}`);
    execFileSync('pandoc', ['-f', 'gfm+yaml_metadata_block', '-s', path.join(DIR, 'price-list.md'), '-o', out]);
    console.log(`price-list.md → price-list.${format} (${fs.statSync(out).size} bytes)`);
  }
}

/** A workbook of two sheets: numbers, a date, a formula with its cached result, rich text. */
async function workbook(): Promise<void> {
  const book = new ExcelJS.Workbook();
  book.creator = 'ACME Sales';
  book.title = 'Stock';
  book.created = new Date('2026-03-01T00:00:00Z');
  const prices = book.addWorksheet('Prices');
  prices.addRow(['Item', 'Price', 'Since']);
  prices.addRow(['Apple', 1.2, new Date('2026-01-02T00:00:00Z')]);
  prices.addRow(['Pear', 0.9, new Date('2026-02-03T00:00:00Z')]);
  prices.addRow(['Total', { formula: 'B2+B3', result: 2.1 }, null]);
  const notes = book.addWorksheet('Notes');
  notes.addRow(['Note']);
  notes.addRow([{ richText: [{ text: 'Prices | are ' }, { text: 'final', font: { bold: true } }] }]);
  await book.xlsx.writeFile(path.join(DIR, 'stock.xlsx'));
  console.log('stock.xlsx');
}

async function main(): Promise<void> {
  office();
  await workbook();
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: MACHINE_ARGS, headless: true });
  try {
    for (const file of fs
      .readdirSync(DIR)
      .filter((f) => f.endsWith('.html'))
      .sort()) {
      const page = await browser.newPage();
      await page.setContent(fs.readFileSync(path.join(DIR, file), 'utf8'), { waitUntil: 'load' });
      const pdf = await page.pdf({ format: 'A4', printBackground: true, tagged: false, ...(OPTIONS[file] ?? {}) });
      fs.writeFileSync(path.join(DIR, file.replace(/\.html$/, '.pdf')), pdf);
      await page.close();
      console.log(`${file} → ${file.replace(/\.html$/, '.pdf')} (${pdf.length} bytes)`);
    }
  } finally {
    await browser.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
