import fs from 'node:fs';
import http_ from 'node:http';
import path from 'node:path';
import { handMadeZip } from '../support/hand-made-zip';
import { listenOnLoopback } from '../support/loopback-server';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'documents');
const METRICS = 'metrics_token_for_documents_0123456789';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** word/document.xml inflating to 210 MB from about 200 KB. */
const zipBomb = handMadeZip([{ name: 'word/document.xml', data: Buffer.alloc(210 * 1024 * 1024) }]);

/**
 * Documents through the scrape API (issue 64), end to end over HTTP in both runtimes: a PDF comes
 * back as markdown (or HTML) with its metadata in simple mode — whether the server names its type,
 * says octet-stream, or only the URL's extension tells — and a scan says it needs OCR.
 */
describe.each(runtimesUnderTest('documents'))('documents — $name', (runtime) => {
  let env: InProcessPlatform;
  let token: string;
  let site: { url: string; port: number; close(): Promise<void> };
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    // /<file>?type=<content type>: the fixture with the Content-Type asked (none when empty).
    const server = http_.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://site');
      if (url.pathname === '/broken.pdf')
        return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7\n1 0 obj << broken');
      if (url.pathname === '/prices.csv') return res.writeHead(200, { 'content-type': 'text/csv' }).end('item,price\nApple,1.20\n');
      if (url.pathname === '/bomb.docx') return res.writeHead(200, { 'content-type': DOCX }).end(zipBomb);
      // Declares 2 MB (over DOCUMENT_MAX_BYTES below) and sends a few bytes, then waits: only the header can end it early.
      if (url.pathname === '/huge.pdf')
        return void res
          .writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(2 * 1024 * 1024) })
          .write('%PDF-1.7\n');
      const file = path.join(FIXTURES, path.basename(url.pathname));
      if (!fs.existsSync(file)) return res.writeHead(404).end();
      const type = url.searchParams.get('type') ?? 'application/pdf';
      res.writeHead(200, type ? { 'content-type': type } : {}).end(fs.readFileSync(file));
    });
    site = await listenOnLoopback(server);
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      METRICS_TOKEN: METRICS,
      DOCUMENT_MAX_BYTES: String(1024 * 1024),
    });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'growth' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const scrape = (body: Record<string, unknown>) => http(env.url, '/v1/sync/scrape', { token, json: body });

  it('reads a PDF into markdown with its headings, lists, links and metadata, however its type is told', async () => {
    for (const query of ['', '?type=application/octet-stream', '?type=']) {
      const res = await scrape({ url: `${site.url}/report.pdf${query}`, format: 'markdown' });
      expect({ query, status: res.status, success: res.body.guidance?.success }).toEqual({ query, status: 200, success: true });
      expect(res.body.markdown).toMatch(/^<!-- page 1 -->\n\n# Quarterly report\n/);
      expect(res.body.markdown).toContain('## Revenue');
      expect(res.body.markdown).toContain('- Hardware sales grew');
      expect(res.body.markdown).toContain('[our investor pages](https://example.com/investors)');
      expect(res.body.metadata).toMatchObject({
        title: 'Quarterly report',
        links: ['https://example.com/investors'],
        document: { format: 'pdf', title: 'Quarterly report', ocr_required: false },
      });
      expect(res.body.metadata.document.page_count).toBe(res.body.metadata.document.pages_read);
      expect(res.body.body_base64 ?? null).toBeNull();
    }
    const html = await scrape({ url: `${site.url}/report.pdf`, format: 'html' });
    expect(html.body.html).toContain('<h1>Quarterly report</h1>');
  });

  it('reads Word, slides, workbooks, OpenDocument, EPUB, RTF and CSV through the same scrape, by type, bytes or name', async () => {
    const docx = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    for (const [file, type, format, pageCount] of [
      ['price-list.docx', docx, 'docx', 1],
      ['price-list.docx', 'application/octet-stream', 'docx', 1],
      ['price-list.odt', '', 'odt', 1],
      ['price-list.epub', 'application/epub+zip', 'epub', 1],
      ['price-list.rtf', 'application/rtf', 'rtf', 1],
      ['stock.xlsx', 'application/octet-stream', 'xlsx', 2],
    ] as const) {
      const res = await scrape({ url: `${site.url}/${file}?type=${encodeURIComponent(type)}`, format: 'markdown' });
      expect({ file, type, status: res.status, success: res.body.guidance?.success }).toEqual({ file, type, status: 200, success: true });
      expect(res.body.markdown).toMatch(/^<!-- page 1 -->\n/);
      expect(res.body.metadata.document).toMatchObject({ format, page_count: pageCount, pages_read: pageCount });
      expect(res.body.body_base64 ?? null).toBeNull();
    }
    const slides = await scrape({ url: `${site.url}/price-list.pptx?type=`, format: 'markdown', pages: '2-3' });
    expect(slides.body.metadata.document).toMatchObject({ format: 'pptx', pages_read: 2, pages_charged: 2 });
    expect(slides.body.markdown).toMatch(/^<!-- page 2 -->/);
    expect(slides.headers.get('x-credits-charged')).toBe('2');
    const sheet = await scrape({ url: `${site.url}/stock.xlsx?type=`, format: 'html', pages: '1' });
    expect(sheet.body.html).toContain('<th>Item</th><th>Price</th><th>Since</th>');
    expect(sheet.body.content_type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const csv = await scrape({ url: `${site.url}/prices.csv`, format: 'markdown' });
    expect(csv.body.markdown).toBe('<!-- page 1 -->\n\n| item | price |\n| --- | --- |\n| Apple | 1.20 |\n');
  });

  it('refuses a zip bomb dressed as a DOCX as document_too_large', async () => {
    const res = await scrape({ url: `${site.url}/bomb.docx`, format: 'markdown' });
    expect(res.body.guidance).toMatchObject({ success: false, error_type: 'document_too_large', credits_charged: 1 });
    expect(res.body.guidance.next_steps.join(' ')).toMatch(/past what is read here/);
  });

  it('says a scanned PDF needs OCR instead of answering an empty page in silence', async () => {
    const res = await scrape({ url: `${site.url}/scanned.pdf`, format: 'markdown' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.document).toMatchObject({ ocr_required: true });
  });

  it('reads a scanned PDF by OCR when asked, charged 2 credits a page recognised', async () => {
    const res = await scrape({ url: `${site.url}/scanned.pdf`, format: 'markdown', ocr: true });
    expect(res.status).toBe(200);
    expect(res.body.markdown).toContain('This letter was scanned: its words are pixels, line 20.');
    expect(res.body.metadata.document).toMatchObject({ ocr_required: false, pages_read: 1, pages_ocr: 1, pages_charged: 2 });
    expect([res.body.guidance.credits_charged, res.headers.get('x-credits-charged')]).toEqual([2, '2']);
    expect(res.body.guidance.next_steps.join(' ')).toMatch(/1 scanned page read by OCR/);
  });

  it('answers a PDF it cannot read with its bytes and why, never a 500', async () => {
    const res = await scrape({ url: `${site.url}/broken.pdf`, format: 'markdown' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content_type: 'application/pdf', markdown: null });
    expect(Buffer.from(res.body.body_base64, 'base64').toString()).toContain('%PDF-1.7');
    expect(res.body.metadata?.document ?? null).toBeNull();
    // Typed, not a success, charged as the answer it was (the site sent a file), and no retry advised.
    expect(res.body.guidance).toMatchObject({
      success: false,
      error_type: 'document_corrupt',
      credits_charged: 1,
      suggested_request: null,
    });
    expect(res.headers.get('x-credits-charged')).toBe('1');
  });

  it('charges a credit per page read, and reads only the pages asked', async () => {
    const all = await scrape({ url: `${site.url}/report.pdf`, format: 'markdown' });
    const pages = all.body.metadata.document.pages_read as number;
    expect(pages).toBeGreaterThanOrEqual(2);
    expect([all.body.guidance.credits_charged, all.headers.get('x-credits-charged')]).toEqual([pages, String(pages)]);

    const second = await scrape({ url: `${site.url}/report.pdf`, format: 'markdown', pages: '2' });
    expect(second.body.markdown).toMatch(/^<!-- page 2 -->/);
    expect(second.body.markdown).not.toContain('<!-- page 1 -->');
    expect(second.body.metadata.document).toMatchObject({ pages_read: 1, page_count: pages });
    expect(second.headers.get('x-credits-charged')).toBe('1');

    const first = await scrape({ url: `${site.url}/report.pdf`, format: 'markdown', max_pages: 1 });
    expect(first.body.metadata.document.pages_read).toBe(1);
    expect(first.body.guidance.next_steps.join(' ')).toMatch(/cut at max_pages: 1 pages read of/);
  });

  it('refuses a bad pages value at its field, and max_pages past the cap', async () => {
    for (const [body, field] of [
      [{ pages: '5-3' }, 'pages'],
      [{ pages: '0' }, 'pages'],
      [{ pages: 'first' }, 'pages'],
      [{ max_pages: 0 }, 'max_pages'],
      [{ max_pages: 2001 }, 'max_pages'],
    ] as const) {
      const res = await scrape({ url: `${site.url}/report.pdf`, ...body });
      expect({ body, status: res.status, loc: res.body.detail?.[0]?.loc }).toEqual({ body, status: 422, loc: ['body', field] });
    }
  });

  it('refuses a document whose Content-Length is over the cap at its headers, uncharged', async () => {
    const res = await scrape({ url: `${site.url}/huge.pdf`, format: 'markdown' });
    expect(res.status).toBe(200);
    expect(res.body.guidance).toMatchObject({ success: false, error_type: 'body_too_large', credits_charged: 0 });
    expect(res.body.message).toMatch(/declares 2097152 bytes \(Content-Length\), over the 1048576-byte cap/);
  });

  // Embedded only: one process holds the engine's metrics (distributed, they are on the engine's own port).
  (runtime.mode === 'embedded' ? it : it.skip)('counts documents by outcome and their pages', async () => {
    const series = async () =>
      (await (await fetch(`${env.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })).text()).split('\n');
    const value = (lines: string[], name: string) =>
      Number(
        lines
          .find((l) => l.startsWith(name))
          ?.split(' ')
          .pop() ?? 0,
      );
    const before = await series();
    await scrape({ url: `${site.url}/report.pdf` });
    await scrape({ url: `${site.url}/broken.pdf` });
    const after = await series();
    const read = 'scrape_platform_documents_total{format="pdf",outcome="read"}';
    const unreadable = 'scrape_platform_documents_total{format="pdf",outcome="unreadable"}';
    const pages = 'scrape_platform_document_pages_total{format="pdf"}';
    expect(value(after, read) - value(before, read)).toBe(1);
    expect(value(after, unreadable) - value(before, unreadable)).toBe(1);
    expect(value(after, pages) - value(before, pages)).toBeGreaterThanOrEqual(2);
  });
});
