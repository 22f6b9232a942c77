import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { browserEngine } from './support/browser-engine';

/**
 * A browser page's memory budget with real Chromium (issue 34): a 50 MB page, a gzip bomb that
 * Chromium itself would inflate to 256 MiB, and a page whose script builds a huge DOM from a few
 * bytes each end as `body_too_large` (never charged) before they are read into the engine, while a
 * page with 12 MB of images (the media budget is five times the markup one) loads, and
 * four 50 MB pages at once (the pool's full concurrency, both kinds) add less than 2 GiB to the
 * engine and its browsers, which idle at about 700 MB: within the 3 GiB pod limit operations.md
 * documents. Ordinary pages are untouched.
 */
// The pod limit (3 GiB, operations.md) less the engine's idle footprint with both browsers warm.
const PAGES_MAY_ADD_MB = 2 * 1024;
const MB = 1024 * 1024;

// 4 MB that no codec can shrink: what a large photograph costs on the wire.
const PHOTO = randomBytes(4 * MB);
const paragraph = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(16)}</p>\n`;

/** A gzip member of `totalMb` MiB of HTML paragraphs, deflated as it is made (a few hundred KB). */
async function htmlBomb(totalMb: number): Promise<Buffer> {
  const gzip = zlib.createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  const block = Buffer.from(paragraph.repeat(Math.ceil(MB / paragraph.length)).slice(0, MB));
  gzip.write('<!doctype html><html><head><title>Bomb</title></head><body>');
  for (let i = 0; i < totalMb; i += 1) if (!gzip.write(block)) await new Promise((resolve) => gzip.once('drain', resolve));
  gzip.end('</body></html>');
  await done;
  return Buffer.concat(chunks);
}

function startSite(bomb: Buffer): Promise<{ url: string; port: number; sent: Map<string, number>; close(): Promise<void> }> {
  const sent = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const count = (n: number) => sent.set(url.pathname, (sent.get(url.pathname) ?? 0) + n);
    switch (url.pathname) {
      case '/small':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end('<!doctype html><html><head><title>Small</title></head><body><h1>Small page</h1><p>Fine.</p></body></html>');
      case '/huge': {
        // `mb` MiB of paragraphs, written as fast as the client reads them.
        const total = Number(url.searchParams.get('mb') ?? 50) * MB;
        const block = Buffer.from(paragraph.repeat(Math.ceil((256 * 1024) / paragraph.length)));
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(total) });
        let written = 0;
        const pump = () => {
          while (written < total) {
            const piece = block.subarray(0, Math.min(block.length, total - written));
            written += piece.length;
            count(piece.length);
            if (!res.write(piece)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => undefined);
        return pump();
      }
      case '/gallery':
        // 12 MB of images: past the markup budget, well within the media one.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          `<!doctype html><html><head><title>Gallery</title></head><body><h1>Gallery</h1>${[1, 2, 3].map((i) => `<img src="/photo.png?${i}">`).join('')}</body></html>`,
        );
      case '/photo.png':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PHOTO.length) });
        count(PHOTO.length);
        return res.end(PHOTO);
      case '/bomb':
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-encoding': 'gzip',
          'content-length': String(bomb.length),
        });
        count(bomb.length);
        return res.end(bomb);
      case '/dom-flood':
        // A few hundred bytes that build ~40 M characters of DOM in the renderer.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          '<!doctype html><html><head><title>DOM flood</title></head><body><div id="x"></div><script>' +
            'const p="<p>" + "x".repeat(4000) + "</p>";let h="";for(let i=0;i<1000;i++)h+=p;const x=document.getElementById("x");for(let i=0;i<10;i++)x.insertAdjacentHTML("beforeend",h);' +
            '</script></body></html>',
        );
      case '/shadow-flood':
        // The same flood inside a closed shadow root: the document's own HTML stays a few hundred bytes.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          '<!doctype html><html><head><title>Shadow flood</title></head><body><div id="x"></div><script>' +
            'const p="<p>" + "x".repeat(4000) + "</p>";let h="";for(let i=0;i<1000;i++)h+=p;const r=document.getElementById("x").attachShadow({mode:"closed"});const d=document.createElement("div");r.appendChild(d);for(let i=0;i<10;i++)d.insertAdjacentHTML("beforeend",h);' +
            '</script></body></html>',
        );
      default:
        res.writeHead(404).end();
    }
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        sent,
        close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
      });
    }),
  );
}

/** PSS of this process and every process below it (the engine and its browsers), MB. */
function pssOfTreeMb(root = process.pid): number {
  let kb = 0;
  const visit = (pid: number) => {
    try {
      kb += Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
      for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
        const children = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
        if (children) for (const child of children.split(/\s+/)) visit(Number(child));
      }
    } catch {
      // ended while being read
    }
  };
  visit(root);
  return Math.round(kb / 1024);
}

describe('browser page budget with real Chromium', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let engine: Awaited<ReturnType<typeof browserEngine>>;

  beforeAll(async () => {
    site = await startSite(await htmlBomb(256));
    engine = await browserEngine({
      allow: [`127.0.0.1:${site.port}`],
      pool: { concurrency: 4, queueTimeoutMs: 60_000, recycleAfter: 200 },
      // What these cases check is where the memory budget stops a page, not how fast a machine
      // streams 8 × 50 MB into Chromium: on a loaded 2-core runner, 30 s let a queued page end as
      // `timeout` before its budget (seen in CI). The budget still has to stop every page.
      navigationMs: 90_000,
    });
    await engine.pool.warm(['light', 'heavy']);
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
    await site?.close();
  });

  it('leaves an ordinary page alone', async () => {
    for (const browser_type of ['light', 'heavy']) {
      const { result } = await engine.scrape({ url: `${site.url}/small`, browser_type, format: 'html' });
      expect(result.guidance).toMatchObject({ success: true });
      expect(result.html).toContain('Small page');
    }
  });

  it('counts images against the larger media budget: a page with 12 MB of images loads in the heavy browser', async () => {
    const { result } = await engine.scrape({ url: `${site.url}/gallery`, browser_type: 'heavy', format: 'markdown' });
    expect(result.guidance).toMatchObject({ success: true });
    expect(result.markdown).toContain('Gallery');
    expect(site.sent.get('/photo.png')).toBe(12 * MB);
  });

  it.each([
    ['a 50 MB page', '/huge?mb=50', 'decoded'],
    ['a gzip bomb (256 MiB of HTML in a few hundred KB)', '/bomb', 'decoded'],
    ['a script that builds a 40 M-character DOM', '/dom-flood', 'characters'],
    ['a script that builds a 40 M-character DOM in a closed shadow root', '/shadow-flood', 'shadow trees'],
  ])('stops %s as body_too_large, uncharged, in both kinds', async (_what, path, says) => {
    for (const browser_type of ['light', 'heavy']) {
      const { facts, result } = await engine.scrape({ url: `${site.url}${path}`, browser_type, format: 'markdown' });
      expect(result.guidance).toMatchObject({ success: false, error_type: 'body_too_large', credits_charged: 0 });
      expect(result.message).toContain(says);
      expect(facts.billable).toBe(false);
    }
    // The site stopped being read near the budget, not at the end of the page.
    if (path.startsWith('/huge')) expect(site.sent.get('/huge')!).toBeLessThan(2 * 50 * MB);
  });

  it('keeps the engine and its browsers within the 3 GiB pod limit under 50 MB pages at full concurrency', async () => {
    // What the pages add is measured, not the total: this process is the test runner too, whose own
    // size depends on the suites run before. The engine alone idles at about 700 MB with both
    // browsers warm (this file run alone, runner included), so the pages may add 2 GiB.
    const base = pssOfTreeMb();
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, pssOfTreeMb())), 100);
    try {
      const results = await Promise.all(
        ['light', 'heavy', 'light', 'heavy', 'light', 'heavy', 'light', 'heavy'].map((browser_type) =>
          engine.scrape({ url: `${site.url}/huge?mb=50`, browser_type, format: 'markdown' }),
        ),
      );
      for (const { result } of results) expect(result.guidance.error_type).toBe('body_too_large');
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, pssOfTreeMb());
    process.stdout.write(`browser page budget: 8 × 50 MB pages, 4 at once: PSS ${base} → ${peak} MB (engine, runner and browsers)\n`);
    expect(peak - base).toBeLessThan(PAGES_MAY_ADD_MB);
  }, 180_000);
});
