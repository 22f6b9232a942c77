/**
 * Makes the PDFs of test/fixtures/documents from the HTML beside them with the system Chromium's
 * print to PDF (work time only: the tests read the committed PDFs). After changing a page:
 *   node scripts/build.js && node dist/bench/src/document-fixtures.js
 */
import fs from 'node:fs';
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

async function main(): Promise<void> {
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
