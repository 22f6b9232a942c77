import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { handMadeZip } from '../support/hand-made-zip';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'documents');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const MAX = 1024 * 1024;

/**
 * POST /v1/documents/convert (issue 64) over HTTP in both runtimes: a file a client already has,
 * as the raw body or a multipart form, read as a scraped document is and charged a credit per
 * page; bounded before it costs (a Content-Length past DOCUMENT_MAX_BYTES is a 413 before the body
 * is read), and every refusal typed and uncharged.
 */
describe.each(runtimesUnderTest('document uploads'))('document uploads — $name', (runtime) => {
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, DOCUMENT_MAX_BYTES: String(MAX) });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'growth' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
  });

  const upload = (query: string, body: Uint8Array | FormData, contentType?: string) =>
    http(env.url, `/v1/documents/convert${query}`, {
      method: 'POST',
      token,
      body,
      headers: contentType ? { 'content-type': contentType } : {},
    });

  it('reads a raw PDF body, charged a credit per page', async () => {
    const res = await upload('', fixture('report.pdf'), 'application/pdf');
    expect(res.status).toBe(200);
    expect(res.body.markdown).toMatch(/^<!-- page 1 -->\n\n# Quarterly report\n/);
    expect(res.body.document).toMatchObject({ format: 'pdf', title: 'Quarterly report', ocr_required: false });
    const pages = res.body.document.pages_read as number;
    expect([res.body.credits_charged, res.headers.get('x-credits-charged')]).toEqual([pages, String(pages)]);
    const second = await upload('?pages=2&format=html', fixture('report.pdf'), 'application/pdf');
    expect(second.body).toMatchObject({ markdown: null, document: { pages_read: 1 }, credits_charged: 1 });
    expect(second.body.html).toContain('<section data-page="2">');
  });

  it('reads a scan by OCR when asked (a query flag or a form field), 2 credits a page; "false" is false', async () => {
    const asked = await upload('?ocr=true', fixture('scanned.pdf'), 'application/pdf');
    expect(asked.status).toBe(200);
    expect(asked.body.markdown).toContain('This letter was scanned: its words are pixels, line 3.');
    expect(asked.body.document).toMatchObject({ pages_read: 1, pages_ocr: 1, pages_charged: 2, ocr_required: false });
    expect([asked.body.credits_charged, asked.headers.get('x-credits-charged')]).toEqual([2, '2']);
    const notAsked = await upload('?ocr=false', fixture('scanned.pdf'), 'application/pdf');
    expect(notAsked.body.document).toMatchObject({ pages_charged: 1, ocr_required: true });
    expect(notAsked.body.document.pages_ocr).toBeUndefined();
    expect(notAsked.body.notes.join(' ')).toMatch(/ask with ocr: true/);
    const form = new FormData();
    form.append('ocr', 'true');
    form.append('file', new Blob([fixture('scanned.pdf')], { type: 'application/pdf' }), 'scan.pdf');
    expect((await upload('', form)).body.document).toMatchObject({ pages_ocr: 1 });
    const bad = await upload('?ocr=perhaps', fixture('scanned.pdf'), 'application/pdf');
    expect([bad.status, bad.body.detail?.[0]?.loc]).toEqual([422, ['query', 'ocr']]);
  });

  it('reads a multipart form: the file in "file", the options as fields', async () => {
    const form = new FormData();
    form.append('format', 'html');
    form.append('file', new Blob([fixture('price-list.docx')], { type: DOCX }), 'price-list.docx');
    const res = await upload('', form);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content_type: DOCX, markdown: null, document: { format: 'docx', title: 'Price list' } });
    expect(res.body.html).toContain('<th>Item</th>');
  });

  it('tells the format of an octet-stream by its bytes or its name', async () => {
    const xlsx = await upload('?filename=stock.xlsx', fixture('stock.xlsx'), 'application/octet-stream');
    expect(xlsx.body.document).toMatchObject({ format: 'xlsx', page_count: 2 });
    const csv = await upload('?filename=prices.csv', new TextEncoder().encode('item,price\nApple,1.20\n'), 'application/octet-stream');
    expect(csv.body.markdown).toBe('<!-- page 1 -->\n\n| item | price |\n| --- | --- |\n| Apple | 1.20 |\n');
  });

  it('answers a Content-Length past the cap 413 before reading the body', async () => {
    // A raw socket: headers that declare 2 MB, ten bytes sent, and the connection held open.
    const { port } = new URL(env.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () =>
        socket.write(
          `POST /v1/documents/convert HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\ncontent-type: application/pdf\r\ncontent-length: ${2 * MAX}\r\n\r\n%PDF-1.7\n`,
        ),
      );
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (text.includes('\r\n\r\n') && text.includes('}')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain('"error_code":"document_too_large"');
    expect(answer).toMatch(/x-credits-charged: 0/i);
  });

  it('stops a chunked body at the cap, 413', async () => {
    const big = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 24; i += 1) controller.enqueue(new Uint8Array(64 * 1024));
        controller.close();
      },
    });
    const res = await fetch(`${env.url}/v1/documents/convert`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
      body: big,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await res.json()).error_code).toBe('document_too_large');
  });

  it('refuses what it cannot read with a typed 4xx, never charged', async () => {
    const compound = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const encrypted = Buffer.concat([compound, Buffer.alloc(500), Buffer.from('EncryptedPackage', 'utf16le'), Buffer.alloc(100)]);
    const bomb = handMadeZip([{ name: 'word/document.xml', data: Buffer.alloc(210 * 1024 * 1024) }]);
    for (const [body, type, status, code] of [
      [encrypted, DOCX, 422, 'document_encrypted'],
      [new TextEncoder().encode('%PDF-1.7\n1 0 obj << broken'), 'application/pdf', 422, 'document_corrupt'],
      [bomb, DOCX, 413, 'document_too_large'],
      [new TextEncoder().encode('just some bytes'), 'application/octet-stream', 415, 'unsupported_document'],
    ] as const) {
      const res = await upload('', body, type);
      expect({ code, status: res.status, error_code: res.body.error_code, charged: res.headers.get('x-credits-charged') }).toEqual({
        code,
        status,
        error_code: code,
        charged: '0',
      });
    }
  });

  it('refuses a body that is not an upload, and an option that is not one, at its place', async () => {
    const json = await http(env.url, '/v1/documents/convert', { token, json: { url: 'x' } });
    expect([json.status, json.body.error_code]).toEqual([415, 'unsupported_document']);
    const bad = await upload('?pages=5-3', fixture('report.pdf'), 'application/pdf');
    expect([bad.status, bad.body.detail?.[0]?.loc]).toEqual([422, ['query', 'pages']]);
    const form = new FormData();
    form.append('max_pages', '0');
    form.append('file', new Blob([fixture('report.pdf')], { type: 'application/pdf' }), 'r.pdf');
    const badField = await upload('', form);
    expect([badField.status, badField.body.detail?.[0]?.loc]).toEqual([422, ['body', 'max_pages']]);
    const noFile = new FormData();
    noFile.append('format', 'html');
    expect((await upload('', noFile)).body.error_code).toBe('unsupported_document');
    // Any other route answers a document type 415, as before.
    const elsewhere = await http(env.url, '/v1/sync/scrape', {
      token,
      body: fixture('report.pdf'),
      headers: { 'content-type': 'application/pdf' },
    });
    expect(elsewhere.status).toBe(415);
  });
});
