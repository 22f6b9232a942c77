import fs from 'node:fs';
import path from 'node:path';
import { handMadeZip } from '../../../../test/support/hand-made-zip';
import { documentKindOf } from './document-kinds';
import { readDocument } from './document-reader';
import { DocumentUnreadableError } from './document-reading';
import { zipEntriesWithin } from './zip-budget';

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '../../../../test/fixtures/documents', name));
const everyPage = { wanted: () => true, max: 1000, deadline: Infinity };

/** Files pandoc and exceljs made from one source (bench/src/document-fixtures.ts): what each reader must give back. */
describe('readDocument', () => {
  it.each(['docx', 'odt', 'epub'])(
    'reads a %s: headings, a link, a table with its header, both lists apart, a footnote',
    async (format) => {
      const doc = await readDocument(format as 'docx', fixture(`price-list.${format}`), everyPage);
      expect(doc.markdown).toMatch(/^<!-- page 1 -->\n/);
      expect(doc.markdown).toContain('## Fruit');
      expect(doc.markdown).toContain('[link to the shop](https://example.com/shop)');
      expect(doc.markdown).toContain('| Apple | 1.20 | yes |');
      expect(doc.markdown).toContain('- Prices include tax\n- Delivery is free over 50\n\n1. Order online\n2. Pay on delivery');
      expect(doc.markdown).toMatch(/Except on public holidays/);
      expect(doc.metadata).toMatchObject({ title: 'Price list', author: 'ACME Sales', page_count: 1 });
      expect([doc.pages, doc.charged, doc.links]).toEqual([[1], 1, ['https://example.com/shop']]);
      if (format !== 'odt') expect(doc.markdown).toContain('| Item | Price | Stock |\n| --- | --- | --- |');
    },
  );

  it('reads a DOCX footnote as a markdown footnote', async () => {
    const doc = await readDocument('docx', fixture('price-list.docx'), everyPage);
    expect(doc.markdown).toContain('ship the same day[^1].');
    expect(doc.markdown).toContain('[^1]: Except on public holidays.');
  });

  it('reads a presentation slide by slide, and only the slides asked', async () => {
    const all = await readDocument('pptx', fixture('price-list.pptx'), everyPage);
    expect(all.metadata.page_count).toBeGreaterThanOrEqual(3);
    expect(all.pages).toEqual(Array.from({ length: all.metadata.page_count }, (_, i) => i + 1));
    expect(all.charged).toBe(all.pages.length);
    expect(all.markdown).toContain('| Apple | 1.20 | yes |');
    const second = await readDocument('pptx', fixture('price-list.pptx'), { wanted: (n) => n === 2, max: 10, deadline: Infinity });
    expect(second.markdown).toMatch(/^<!-- page 2 -->\n/);
    expect(second.markdown).not.toContain('<!-- page 1 -->');
    expect([second.pages, second.charged]).toEqual([[2], 1]);
    const first = await readDocument('pptx', fixture('price-list.pptx'), { wanted: () => true, max: 1, deadline: Infinity });
    expect([first.pages, first.cut]).toEqual([[1], 'max_pages']);
  });

  it('reads a workbook sheet by sheet: formula results, ISO dates, rich text, pipes kept inside their cell', async () => {
    const doc = await readDocument('xlsx', fixture('stock.xlsx'), everyPage);
    expect(doc.metadata).toMatchObject({ title: 'Stock', author: 'ACME Sales', created: '2026-03-01T00:00:00.000Z', page_count: 2 });
    expect(doc.markdown).toBe(
      [
        '<!-- page 1 -->',
        '## Prices',
        '| Item | Price | Since |\n| --- | --- | --- |\n| Apple | 1.2 | 2026-01-02 |\n| Pear | 0.9 | 2026-02-03 |\n| Total | 2.1 |  |',
        '<!-- page 2 -->',
        '## Notes',
        '| Note |\n| --- |\n| Prices \\| are final |',
      ].join('\n\n') + '\n',
    );
    const notes = await readDocument('xlsx', fixture('stock.xlsx'), { wanted: (n) => n === 2, max: 10, deadline: Infinity });
    expect([notes.pages, notes.charged]).toEqual([[2], 1]);
  });

  it('reads RTF and CSV', async () => {
    const rtf = await readDocument('rtf', fixture('price-list.rtf'), everyPage);
    expect(rtf.markdown).toContain('| Apple | 1.20 | yes |');
    expect(rtf.markdown).toContain('[link to the shop](https://example.com/shop)');
    const csv = await readDocument('csv', Buffer.from('\uFEFFname;note\n"Smith, J.";"says ""hi"" | bye"\nDoe;\n'), everyPage);
    expect(csv.markdown).toBe('<!-- page 1 -->\n\n| name | note |\n| --- | --- |\n| Smith, J. | says "hi" \\| bye |\n| Doe |  |\n');
  });

  it('charges a flowing document by its text: a page per 3,000 characters', async () => {
    const long = Array.from({ length: 4000 }, (_, i) => `row${i},${'x'.repeat(20)}`).join('\n');
    const csv = await readDocument('csv', Buffer.from(`id,value\n${long}`), everyPage);
    expect(csv.charged).toBe(Math.ceil(csv.text.length / 3000));
    expect(csv.charged).toBeGreaterThan(30);
  });

  it('refuses an encrypted Office file as document_encrypted, and a legacy binary one as corrupt', async () => {
    const compound = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const encrypted = Buffer.concat([compound, Buffer.alloc(500), Buffer.from('EncryptedPackage', 'utf16le'), Buffer.alloc(100)]);
    await expect(readDocument('docx', encrypted, everyPage)).rejects.toMatchObject({ reason: 'document_encrypted' });
    await expect(readDocument('xlsx', Buffer.concat([compound, Buffer.alloc(600)]), everyPage)).rejects.toMatchObject({
      reason: 'document_corrupt',
      message: expect.stringMatching(/legacy binary Office/),
    });
  });

  it.each(['docx', 'xlsx', 'pptx', 'odt', 'epub'])('refuses a %s that is not a zip as corrupt, never another error', async (format) => {
    for (const bytes of [Buffer.from('PK\u0003\u0004 not really'), fixture(`price-list.docx`).subarray(0, 2000), Buffer.alloc(0)]) {
      const outcome = await readDocument(format as 'docx', bytes, everyPage).then(
        () => 'read',
        (error: unknown) => (error instanceof DocumentUnreadableError ? error.reason : `untyped ${String(error)}`),
      );
      expect(outcome).toMatch(/^(read|document_corrupt)$/);
    }
  });

  describe('zip bombs are refused before a library opens them', () => {
    const limits = { maxExpandedBytes: 50 * 1024 * 1024, maxEntries: 100 };

    it('an entry that inflates past the budget, its size told truly', async () => {
      const bomb = handMadeZip([{ name: 'word/document.xml', data: Buffer.alloc(60 * 1024 * 1024) }]);
      expect(bomb.length).toBeLessThan(200_000);
      await expect(zipEntriesWithin(bomb, limits)).rejects.toMatchObject({ reason: 'document_too_large' });
    });

    it('an entry whose header says 1 KB and inflates to 60 MB', async () => {
      const liar = handMadeZip([{ name: 'word/document.xml', data: Buffer.alloc(60 * 1024 * 1024), declaredSize: 1024 }]);
      const refused = await zipEntriesWithin(liar, limits).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DocumentUnreadableError);
      expect(['document_too_large', 'document_corrupt']).toContain((refused as DocumentUnreadableError).reason);
    });

    it('more entries than a document has', async () => {
      const many = handMadeZip(Array.from({ length: 101 }, (_, i) => ({ name: `f${i}.xml`, data: Buffer.from('x') })));
      await expect(zipEntriesWithin(many, limits)).rejects.toMatchObject({ reason: 'document_too_large' });
    });

    it('through the reader, with the default budget (200 MB)', async () => {
      const bomb = handMadeZip([
        { name: '[Content_Types].xml', data: Buffer.from('<Types/>') },
        { name: 'word/document.xml', data: Buffer.alloc(210 * 1024 * 1024) },
      ]);
      await expect(readDocument('docx', bomb, everyPage)).rejects.toMatchObject({ reason: 'document_too_large' });
    }, 30_000);

    it('answers a real document with its entries and their inflated sizes', async () => {
      const sizes = await zipEntriesWithin(fixture('price-list.docx'));
      expect(sizes.get('word/document.xml')).toBeGreaterThan(1000);
    });
  });
});

describe('documentKindOf', () => {
  it.each([
    [
      'a named DOCX',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      Buffer.from('x'),
      'https://x.test/a',
      'docx',
    ],
    ['octet-stream, a zip with a workbook inside', 'application/octet-stream', fixture('stock.xlsx'), 'https://x.test/dl?id=1', 'xlsx'],
    ['no type, a zip with slides inside', null, fixture('price-list.pptx'), 'https://x.test/dl', 'pptx'],
    ['application/zip, an OpenDocument text', 'application/zip', fixture('price-list.odt'), 'https://x.test/dl', 'odt'],
    ['no type, RTF bytes', null, fixture('price-list.rtf'), 'https://x.test/dl', 'rtf'],
    ['text/csv', 'text/csv; charset=utf-8', Buffer.from('a,b'), 'https://x.test/a', 'csv'],
    ['text/plain named .csv', 'text/plain', Buffer.from('a,b'), 'https://x.test/a.csv', null],
    ['octet-stream named .epub', 'application/octet-stream', Buffer.from('junk'), 'https://x.test/book.epub', 'epub'],
    [
      'a plain zip archive',
      'application/zip',
      handMadeZip([{ name: 'readme.txt', data: Buffer.from('hi') }]),
      'https://x.test/a.zip',
      null,
    ],
  ])('%s', (_, type, body, url, expected) => {
    expect(documentKindOf(type, body, url)).toBe(expected);
  });
});
