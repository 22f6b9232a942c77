import zlib from 'node:zlib';
import { readSitemapDocument, SITEMAP_MAX_URLS, UnreadableSitemap } from './sitemap-document';

const urlset = (urls: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls
    .map((u) => `<url><loc>${u}</loc><lastmod>2026-01-01</lastmod></url>`)
    .join('')}</urlset>`;
const read = (text: string | Buffer) => readSitemapDocument(Buffer.isBuffer(text) ? text : Buffer.from(text));

describe('readSitemapDocument', () => {
  it('reads a urlset and an index (namespaced, CDATA, whitespace)', async () => {
    await expect(read(urlset(['https://a.example/1', 'https://a.example/2']))).resolves.toEqual({
      kind: 'urlset',
      locs: ['https://a.example/1', 'https://a.example/2'],
      overLimit: false,
    });
    const index = `<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>
      <![CDATA[https://a.example/s1.xml.gz]]> </sm:loc></sm:sitemap></sm:sitemapindex>`;
    await expect(read(index)).resolves.toEqual({ kind: 'index', locs: ['https://a.example/s1.xml.gz'], overLimit: false });
  });

  it('inflates gzip members and reads plain-text sitemaps', async () => {
    await expect(read(zlib.gzipSync(urlset(['https://a.example/z'])))).resolves.toMatchObject({ locs: ['https://a.example/z'] });
    await expect(read('https://a.example/1\r\nhttps://a.example/2\n\n')).resolves.toMatchObject({
      locs: ['https://a.example/1', 'https://a.example/2'],
    });
  });

  it('keeps the first 50,000 URLs and says there were more', async () => {
    const urls = Array.from({ length: SITEMAP_MAX_URLS + 5 }, (_, i) => `https://a.example/${i}`);
    const document = await read(urlset(urls));
    expect(document.locs).toHaveLength(SITEMAP_MAX_URLS);
    expect(document.overLimit).toBe(true);
  });

  it('stops a gzip bomb at 50 MB of output', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    const before = process.memoryUsage().rss;
    await expect(read(bomb)).rejects.toMatchObject({ outcome: 'too_large' });
    expect(process.memoryUsage().rss - before).toBeLessThan(120 * 1024 * 1024);
  });

  it.each([
    [
      'an entity bomb (any DTD is refused)',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><urlset><url><loc>&lol2;</loc></url></urlset>',
    ],
    [
      'an external entity',
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><urlset><url><loc>&e;</loc></url></urlset>',
    ],
    ['an undefined entity', '<urlset><url><loc>&e;</loc></url></urlset>'],
    ['another root element', '<html><body>not a sitemap</body></html>'],
    ['broken XML', '<urlset><url><loc>https://a.example/</url>'],
    ['text that is not URLs', 'hello\nworld'],
    ['a broken gzip member', Buffer.from([0x1f, 0x8b, 1, 2, 3, 4])],
  ])('refuses %s as malformed', async (_, body) => {
    const error = await read(body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableSitemap);
    expect(error).toMatchObject({ outcome: 'malformed' });
  });
});
