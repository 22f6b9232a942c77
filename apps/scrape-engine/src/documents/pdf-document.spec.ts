import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { tableBlockOf } from './pdf-layout';
import { dateOf, DocumentUnreadableError, readPdf, tablesAcrossPages } from './pdf-document';

const fixture = (name: string) => new Uint8Array(fs.readFileSync(path.join(__dirname, '../../../../test/fixtures/documents', name)));
const everyPage = { wanted: () => true, max: 1000, deadline: Infinity };

/** A hand-made PDF: its objects as written, with the cross-reference table that finds them. */
function handMadePdf(objects: string[]): Uint8Array {
  let file = '%PDF-1.4\n';
  const offsets = objects.map((object, i) => {
    const at = file.length;
    file += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return at;
  });
  const xref = file.length;
  file += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('')}`;
  file += `trailer\n<</Size ${objects.length + 1}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(file);
}

/** PDFs printed by Chromium from HTML beside them (bench/src/document-fixtures.ts): what the reader must give back. */
describe('readPdf', () => {
  it('reads a report: headings by size and by a bold face, paragraphs, lists, a link, page markers, and no running header or footer', async () => {
    const doc = await readPdf(fixture('report.pdf'), everyPage);
    expect(doc.metadata).toMatchObject({ title: 'Quarterly report', page_count: doc.pages.length });
    expect(doc.pages.length).toBeGreaterThanOrEqual(2);
    expect(doc.markdown).toMatch(/^<!-- page 1 -->\n\n# Quarterly report\n/);
    const headings = doc.markdown.split('\n').filter((l) => l.startsWith('#'));
    expect(headings).toEqual(['# Quarterly report', '## Revenue', '### By region', '#### Regional notes', '## Costs', '## Outlook']);
    // A bold lead-in is no heading; what markdown would read as a tag or emphasis is escaped.
    expect(doc.markdown).toContain('\n\nNote: the regions are those of the \\<region> codes, where growth = sales \\* price_index,');
    expect(doc.markdown).toContain('- Hardware sales grew\n- Services held steady\n- Licences fell slightly');
    expect(doc.markdown).toContain('1. Staff\n2. Premises\n3. Travel');
    expect(doc.markdown).toContain('[our investor pages](https://example.com/investors)');
    expect(doc.markdown).not.toMatch(/Confidential|ACME Corp/);
    expect(doc.markdown).toContain(
      'Revenue paragraph 6: the figures for this part of the year are set out here in plain words, with enough text to fill a real page of a real report.',
    );
    expect(doc.ocrRequired).toBe(false);
  });

  it('reads footnotes: the raised markers as references, the notes at the end, a page numbering them again apart', async () => {
    const doc = await readPdf(fixture('footnotes.pdf'), everyPage);
    expect(doc.markdown).toContain('The survey covered 1,200 households[^1] in four regions,');
    expect(doc.markdown).toContain('Answers were weighted by region[^2] so that');
    expect(doc.markdown).toContain('Most households heat their homes with gas[^1-p2], and');
    // Body text that begins with a number is no note.
    expect(doc.markdown).toContain('\n\n1 in 5 households said they had moved');
    expect(doc.markdown).toMatch(
      /\n\n\[\^1\]: Households were drawn at random from the 2024 register of addresses\.\n\[\^2\]: Weights follow the national census of 2021, the latest whose regional counts are published, and are the same for every question asked\.\n\[\^1-p2\]: Mains gas or bottled gas; the question did not tell them apart\.\n$/,
    );
    expect(doc.html).toContain('<section data-footnotes><p id="fn-1"><sup>1</sup> Households were drawn');
    expect(doc.text).toContain('[1-p2] Mains gas or bottled gas');
  });

  it('reads two columns left first, then right', async () => {
    const doc = await readPdf(fixture('two-columns.pdf'), everyPage);
    const order = [
      '# A study in two columns',
      '## Left begins',
      'Method paragraph 1',
      'Method paragraph 5',
      '## Results',
      'Result paragraph 5',
    ].map((s) => doc.markdown.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("reads CJK text set in a CID font through Adobe's predefined CMaps (pdf.js finds them in its package)", async () => {
    const stream = 'BT /F1 24 Tf 72 700 Td <65E5672C8A9E> Tj ET';
    const pdf = handMadePdf([
      '<</Type/Catalog/Pages 2 0 R>>',
      '<</Type/Pages/Kids[3 0 R]/Count 1>>',
      '<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>>>/Contents 4 0 R>>',
      `<</Length ${stream.length}>>\nstream\n${stream}\nendstream`,
      '<</Type/Font/Subtype/Type0/BaseFont/HeiseiMin-W3/Encoding/UniJIS-UCS2-H/DescendantFonts[6 0 R]>>',
      '<</Type/Font/Subtype/CIDFontType0/BaseFont/HeiseiMin-W3/CIDSystemInfo<</Registry(Adobe)/Ordering(Japan1)/Supplement 2>>/FontDescriptor 7 0 R>>',
      '<</Type/FontDescriptor/FontName/HeiseiMin-W3/Flags 6/FontBBox[0 0 1000 1000]/ItalicAngle 0/Ascent 880/Descent -120/CapHeight 700/StemV 80>>',
    ]);
    expect((await readPdf(pdf, everyPage)).markdown).toBe('<!-- page 1 -->\n\n日本語\n');
  });

  it('reads a table as a table: its header, a row a line, a long cell whole, and the text around it in place', async () => {
    const doc = await readPdf(fixture('price-table.pdf'), everyPage);
    expect(doc.markdown).toContain(
      [
        "as set by the buyers' committee.",
        '',
        '| Item | Unit | Price | Note |',
        '| --- | --- | --- | --- |',
        '| Apples | kg | 2.40 | Picked in the valley this week, sold until the stock runs out |',
        '| Bread | piece | 1.10 | Baked each morning |',
        '| Cheese | kg | 14.90 | Aged for a year in the cellar under the shop, cut to order at the counter |',
        '| Eggs | dozen | 3.60 | Free range |',
        '',
        'Prices change on the first of each month',
      ].join('\n'),
    );
    expect(doc.html).toContain(
      '<table><thead><tr><th>Item</th><th>Unit</th><th>Price</th><th>Note</th></tr></thead><tbody><tr><td>Apples</td>',
    );
  });

  it('says a scan needs OCR instead of returning nothing', async () => {
    const doc = await readPdf(fixture('scanned.pdf'), everyPage);
    expect(doc.ocrRequired).toBe(true);
  });

  it('reads only the pages asked, within max', async () => {
    const doc = await readPdf(fixture('report.pdf'), { wanted: (n) => n >= 2, max: 1, deadline: Infinity });
    expect(doc.pages).toEqual([2]);
    expect(doc.markdown).toMatch(/^<!-- page 2 -->/);
    expect(doc.cut).toBe(doc.metadata.page_count > 2 ? 'max_pages' : null);
    const all = await readPdf(fixture('report.pdf'), everyPage);
    expect(all.cut).toBeNull();
    const first = await readPdf(fixture('report.pdf'), { wanted: () => true, max: 1, deadline: Infinity });
    expect([first.pages, first.cut]).toEqual([[1], 'max_pages']);
  });

  it('stops at its time budget and says so', async () => {
    const doc = await readPdf(fixture('report.pdf'), { wanted: () => true, max: 1000, deadline: performance.now() - 1 });
    expect([doc.pages, doc.cut]).toEqual([[], 'time']);
  });

  it('refuses a PDF declaring 100,000 pages before reading one (a page-tree bomb)', async () => {
    const kids = Array.from({ length: 100_000 }, () => '3 0 R').join(' ');
    const bomb = handMadePdf([
      '<</Type/Catalog/Pages 2 0 R>>',
      `<</Type/Pages/Count 100000/Kids[${kids}]>>`,
      '<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>',
    ]);
    await expect(readPdf(bomb, everyPage)).rejects.toMatchObject({
      reason: 'document_too_large',
      message: expect.stringContaining('100000 pages'),
    });
  });

  it('answers a PDF of deeply nested objects with a reading or a typed refusal, on a stack that survives', async () => {
    for (const depth of [1_000, 100_000]) {
      const nested = '['.repeat(depth) + ']'.repeat(depth);
      const deep = handMadePdf([
        '<</Type/Catalog/Pages 2 0 R>>',
        '<</Type/Pages/Count 1/Kids[3 0 R]>>',
        `<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Deep ${nested}>>`,
      ]);
      const outcome = await readPdf(deep, everyPage).then(
        (doc) => `read ${doc.pages.length}`,
        (error: unknown) => (error instanceof DocumentUnreadableError ? error.reason : `untyped ${String(error)}`),
      );
      expect(outcome).toMatch(/^(read \d+|document_corrupt|document_too_large)$/);
    }
  });

  it('refuses what is not a PDF as corrupt', async () => {
    await expect(readPdf(new TextEncoder().encode('%PDF-1.7 nothing else'), everyPage)).rejects.toMatchObject({
      reason: 'document_corrupt',
    });
  });

  it('answers any file that starts like a PDF with a reading or a typed refusal, never another error (property)', async () => {
    const header = new TextEncoder().encode('%PDF-1.7\n');
    const real = fixture('report.pdf');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 2000 }).map((tail) => new Uint8Array([...header, ...tail])),
          // A real file with bytes overwritten somewhere: a broken object, a broken stream.
          fc.tuple(fc.integer({ min: 0, max: real.length - 1 }), fc.uint8Array({ minLength: 1, maxLength: 64 })).map(([at, junk]) => {
            const copy = new Uint8Array(real);
            copy.set(junk.subarray(0, real.length - at), at);
            return copy;
          }),
        ),
        async (bytes) => {
          const outcome = await readPdf(bytes, everyPage).then(
            (doc) => ({ read: typeof doc.markdown === 'string' }),
            (error: unknown) => ({ refused: error instanceof DocumentUnreadableError }),
          );
          expect(outcome).toEqual(expect.objectContaining(Object.keys(outcome)[0] === 'read' ? { read: true } : { refused: true }));
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);

  it('reads PDF dates', () => {
    expect(dateOf("D:20261206013000+01'00'")).toBe('2026-12-06T00:30:00.000Z');
    expect(dateOf('D:2026')).toBe('2026-01-01T00:00:00.000Z');
    expect(dateOf('yesterday')).toBeNull();
  });
});

describe('tablesAcrossPages', () => {
  const paragraph = { kind: 'paragraph' as const, text: 'p', markdown: 'p' };

  it('joins a table that goes on over the page, its repeated header once and a row the page broke as one row', () => {
    const pages = tablesAcrossPages([
      {
        n: 1,
        blocks: [
          paragraph,
          tableBlockOf([
            ['Symptom', 'Cause'],
            ['Slow', 'CPUs are'],
            ['Errors', 'The database'],
          ]),
        ],
      },
      {
        n: 2,
        blocks: [
          tableBlockOf([
            ['Symptom', 'Cause'],
            ['', 'refuses connections'],
            ['Cats', 'The network'],
          ]),
          paragraph,
        ],
      },
    ]);
    expect(pages.map((p) => p.blocks.map((b) => b.kind))).toEqual([['paragraph', 'table'], ['paragraph']]);
    expect((pages[0].blocks[1] as ReturnType<typeof tableBlockOf>).rows).toEqual([
      ['Symptom', 'Cause'],
      ['Slow', 'CPUs are'],
      ['Errors', 'The database refuses connections'],
      ['Cats', 'The network'],
    ]);
  });

  it("keeps two tables on one page apart unless the second repeats the first one's header", () => {
    const pages = tablesAcrossPages([
      {
        n: 1,
        blocks: [
          tableBlockOf([
            ['a', 'b'],
            ['1', '2'],
          ]),
          tableBlockOf([
            ['c', 'd'],
            ['3', '4'],
          ]),
        ],
      },
    ]);
    expect(pages[0].blocks).toHaveLength(2);
  });
});
