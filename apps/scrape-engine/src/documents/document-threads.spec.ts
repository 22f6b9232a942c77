import fs from 'node:fs';
import path from 'node:path';
import { readDocument } from './document-reader';
import { DocumentThreads } from './document-threads';

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '../../../../test/fixtures/documents', name));
const everyPage = { ranges: null, max: 1000, budgetMs: 20_000, ocr: false };

describe(DocumentThreads.name, () => {
  let threads: DocumentThreads;
  afterEach(() => threads?.close());

  it('reads documents on its threads as the reader does in place, more at once than it has threads', async () => {
    threads = new DocumentThreads();
    const files = [
      ['pdf', 'report.pdf'],
      ['docx', 'price-list.docx'],
      ['xlsx', 'stock.xlsx'],
      ['pptx', 'price-list.pptx'],
      ['pdf', 'two-columns.pdf'],
    ] as const;
    const onThreads = await Promise.all(files.map(([kind, name]) => threads.read(kind, fixture(name), everyPage)));
    for (const [i, [kind, name]] of files.entries()) {
      const inPlace = await readDocument(kind, fixture(name), { wanted: () => true, max: 1000, deadline: Infinity });
      expect(onThreads[i]!.markdown).toBe(inPlace.markdown);
    }
  }, 60_000);

  it('passes the pages asked and a typed refusal across', async () => {
    threads = new DocumentThreads();
    const second = await threads.read('pdf', fixture('report.pdf'), {
      ranges: [{ first: 2, last: 2 }],
      max: 10,
      budgetMs: 20_000,
      ocr: false,
    });
    expect(second.pages).toEqual([2]);
    await expect(threads.read('pdf', Buffer.from('%PDF-1.7 broken'), everyPage)).rejects.toMatchObject({ reason: 'document_corrupt' });
  }, 60_000);

  it('ends a thread that holds a document past its budget, and answers document_too_large', async () => {
    threads = new DocumentThreads(30_000, { heapMb: 1024, graceMs: 0 });
    await expect(threads.read('pdf', fixture('report.pdf'), { ranges: null, max: 1000, budgetMs: 0, ocr: false })).rejects.toMatchObject({
      reason: 'document_too_large',
      message: expect.stringMatching(/not read within its 0 s budget/),
    });
    // The next document gets a fresh thread.
    expect((await threads.read('xlsx', fixture('stock.xlsx'), everyPage)).pages).toEqual([1, 2]);
  }, 60_000);

  it('ends a thread that needs more memory than a document may use, and answers document_too_large', async () => {
    // 8 MB: less than the readers and this CSV's 400,000 cells need together; the process is untouched.
    threads = new DocumentThreads(30_000, { heapMb: 8, graceMs: 60_000 });
    const rows = Array.from({ length: 100_000 }, (_, i) => `${i},cell ${i},${'v'.repeat(30)},${i * 2}`).join('\n');
    await expect(threads.read('csv', Buffer.from(`a,b,c,d\n${rows}`), everyPage)).rejects.toMatchObject({ reason: 'document_too_large' });
  }, 60_000);

  it('forgets a thread that died while idle: the next document gets a live one', async () => {
    threads = new DocumentThreads();
    await threads.read('xlsx', fixture('stock.xlsx'), everyPage);
    const [idle] = (threads as unknown as { idle: Array<import('node:worker_threads').Worker> }).idle;
    const exited = new Promise((resolve) => idle!.once('exit', resolve));
    await idle!.terminate();
    await exited;
    // A dead thread handed the next document would never answer it (the 20 s budget would end it).
    const read = await threads.read('pdf', fixture('report.pdf'), { ...everyPage, budgetMs: 2_000 });
    expect(read.pages.length).toBeGreaterThan(0);
  }, 60_000);

  it('reads a scan by OCR on its thread when asked, and says it needs OCR when not', async () => {
    threads = new DocumentThreads();
    const unread = await threads.read('pdf', fixture('scanned.pdf'), everyPage);
    expect([unread.ocrRequired, unread.recognised, unread.charged]).toEqual([true, 0, 1]);
    const read = await threads.read('pdf', fixture('scanned.pdf'), { ...everyPage, ocr: true });
    expect([read.ocrRequired, read.recognised, read.charged]).toEqual([false, 1, 2]);
    expect(read.markdown).toContain('This letter was scanned: its words are pixels, line 1.');
    expect(read.markdown).toContain('line 20.');
  }, 60_000);
});
