import fs from 'node:fs';
import http_ from 'node:http';
import path from 'node:path';
import { listenOnLoopback } from '../support/loopback-server';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'documents');
const METRICS = 'metrics_token_for_documents_0123456789';

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
      const file = path.join(FIXTURES, path.basename(url.pathname));
      if (!fs.existsSync(file)) return res.writeHead(404).end();
      const type = url.searchParams.get('type') ?? 'application/pdf';
      res.writeHead(200, type ? { 'content-type': type } : {}).end(fs.readFileSync(file));
    });
    site = await listenOnLoopback(server);
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port}`, METRICS_TOKEN: METRICS });
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

  it('says a scanned PDF needs OCR instead of answering an empty page in silence', async () => {
    const res = await scrape({ url: `${site.url}/scanned.pdf`, format: 'markdown' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.document).toMatchObject({ ocr_required: true });
  });

  it('answers a PDF it cannot read with its bytes and why, never a 500', async () => {
    const res = await scrape({ url: `${site.url}/broken.pdf`, format: 'markdown' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content_type: 'application/pdf', markdown: null });
    expect(Buffer.from(res.body.body_base64, 'base64').toString()).toContain('%PDF-1.7');
    expect(res.body.metadata?.document ?? null).toBeNull();
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
