import fs from 'node:fs';
import http_ from 'node:http';
import path from 'node:path';
import { listenOnLoopback } from '../support/loopback-server';
import { crawlJobs } from './support/crawl-jobs';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { completedTicks } from './support/monitor-ticks';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'documents');
const TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/**
 * Documents inside runs (issue 64), in both runtimes: a crawl that meets a PDF, a Word file and a
 * workbook among its pages reads each (a credit per page, the crawl's total the sum of its pages'),
 * and a monitor over a PDF reports it new, then the same, then changed with a diff of its text.
 */
describe.each(runtimesUnderTest('documents in runs'))('documents in crawls and monitors — $name', (runtime) => {
  let env: InProcessPlatform;
  let token: string;
  let site: { url: string; port: number; close(): Promise<void> };
  /** What /watched.pdf serves now. */
  let watched = 'report.pdf';
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const server = http_.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://site');
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      if (url.pathname === '/')
        return res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<!doctype html><html><head><title>Reports</title></head><body><h1>Reports</h1>${'<p>The reports of the year, to read or download. </p>'.repeat(10)}` +
              '<a href="/report.pdf">Quarterly report</a> <a href="/price-list.docx">Price list</a> <a href="/stock.xlsx">Stock</a></body></html>',
          );
      const name = url.pathname === '/watched.pdf' ? watched : path.basename(url.pathname);
      const file = path.join(FIXTURES, name);
      if (!fs.existsSync(file)) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': TYPES[path.extname(name)] ?? 'application/octet-stream' }).end(fs.readFileSync(file));
    });
    site = await listenOnLoopback(server);
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port}` });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'growth' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const api = (route: string, init: { method?: string; json?: unknown } = {}) => http(env.url, route, { token, ...init });
  const data = async (jobId: string) => (await api(`/v1/jobs/${jobId}/data`)).body;

  it('a crawl that meets documents reads each, a credit per page', async () => {
    const started = await api('/v1/crawl', {
      json: { url: `${site.url}/`, sitemap: 'skip', max_depth: 1, scrape: { format: 'markdown' } },
    });
    expect(started.status).toBe(202);
    const done = await eventually(
      async () => {
        const res = await api(`/v1/crawl/${started.body.crawl_id}`);
        return res.body.status === 'completed' ? res.body : false;
      },
      { what: 'the crawl completed', timeoutMs: 60_000 },
    );
    const jobs = await crawlJobs(env.url, token, started.body.crawl_id);
    const byName = Object.fromEntries(jobs.map((job) => [new URL(job.url).pathname, job]));
    expect(Object.keys(byName).sort()).toEqual(['/', '/price-list.docx', '/report.pdf', '/stock.xlsx']);
    expect(jobs.every((job) => job.status === 'completed')).toBe(true);
    const pdf = await data(byName['/report.pdf']!.job_id);
    expect(pdf.markdown).toMatch(/^<!-- page 1 -->\n\n# Quarterly report\n/);
    expect(pdf.metadata.document).toMatchObject({ format: 'pdf', title: 'Quarterly report' });
    expect(byName['/report.pdf']!.credits).toBe(pdf.metadata.document.pages_read);
    const docx = await data(byName['/price-list.docx']!.job_id);
    expect(docx.markdown).toContain('| Apple | 1.20 | yes |');
    const xlsx = await data(byName['/stock.xlsx']!.job_id);
    expect(xlsx.metadata.document).toMatchObject({ format: 'xlsx', pages_read: 2 });
    expect(byName['/stock.xlsx']!.credits).toBe(2);
    expect(done.credits_charged).toBe(jobs.reduce((sum, job) => sum + job.credits, 0));
  });

  it('a monitor over a PDF: new, then the same, then changed with a diff of its text', async () => {
    watched = 'report.pdf';
    // The revenue paragraphs' numbers are ignored as a clock would be: the document's text, not its markup, is compared.
    const created = await api('/v1/monitors', {
      json: { urls: [`${site.url}/watched.pdf`], schedule: { interval_seconds: 3600 }, ignore: { patterns: ['paragraph \\d+'] } },
    });
    expect(created.status).toBe(201);
    const monitorId: string = created.body.id;
    const ticks = (n: number) => completedTicks(env.url, token, monitorId, n, 60_000);
    const changeOf = async (tickId: string) => {
      const { body } = await api(`/v1/jobs?batch_id=${tickId}&limit=10`);
      return (await data(body.items[0].job_id)).change;
    };
    const [first] = await ticks(1);
    expect(first).toMatchObject({ pages: 1, changes: 1 });
    const firstChange = await changeOf(first.tick_id);
    expect(firstChange.change_status).toBe('new');
    await api(`/v1/monitors/${monitorId}/tick`, { method: 'POST' });
    const [second] = await ticks(2);
    expect((await changeOf(second.tick_id)).change_status).toBe('same');
    watched = 'two-columns.pdf';
    await api(`/v1/monitors/${monitorId}/tick`, { method: 'POST' });
    const [third] = await ticks(3);
    const change = await changeOf(third.tick_id);
    expect(change.change_status).toBe('changed');
    expect(change.diff).toMatch(/^-.*Quarterly report/m);
    expect(change.diff).toMatch(/^\+.*A study in two columns/m);
    expect(change.diff).toMatch(/Revenue :/);
    expect(change.diff).not.toMatch(/paragraph \d+/);
  });
});
