import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/**
 * A generated website for map and crawl tests and the bench (issue 39), served from 127.0.0.1 and
 * deterministic for a given size, with what a real site throws at a crawler and the truth a correct
 * crawler must arrive at.
 *
 * Shape (N articles in SECTIONS sections; article i is in section i % SECTIONS):
 * - `/` links every section and the traps below; `/s{k}/` is a section's first list page and
 *   `/s{k}/?page=n` the others (every list page links all of its section's list pages, so an
 *   article is 3 link hops from `/`); `/s{k}/p{i}` is an article.
 * - **Duplicates**: articles link their next neighbour in six spellings that normalise to one URL
 *   (as is, a trailing slash, a fragment, `utm_*` parameters, a session id, an upper-case scheme)
 *   and a `/print` copy whose `rel=canonical` names the article.
 * - **Redirect chains**: `/old/p{i}` → 301 `/moved/p{i}` → 301 `/s{k}/p{i}`.
 * - **robots.txt**: `Disallow: /private/`, `/s3/drafts/` and `/*?sort=`, a `Crawl-delay`, and the
 *   sitemap index; both disallowed kinds are linked from pages, so a crawler that ignores robots
 *   fetches them (`hits` shows it).
 * - **Sitemaps**: `/sitemap.xml` is an index of gzip members (`/sitemaps/articles-{j}.xml.gz`, at
 *   most SITEMAP_CHUNK URLs each) and one plain member (`/sitemaps/sections.xml`).
 * - **Traps**: `/calendar/{year}/{month}` links the next and previous month forever; `/search?q=…`
 *   links ever longer query permutations.
 * - **Soft 404s**: `/s{k}/gone-{i}` answer 200 with a "page not found" body.
 * - **Blocks**: `/members/{i}` answer 403 with a challenge page.
 * - **Hostile** (only linked from nowhere; tests ask for them): `/hostile/gzip-bomb.xml.gz` (a small
 *   gzip of HOSTILE_EXPANDED_BYTES of zeros), `/hostile/entity-bomb.xml`, `/hostile/huge.xml` (a
 *   sitemap streamed past 50 MB), `/hostile/loop` (a redirect loop), `/hostile/farm/{n}` (each page
 *   links 100 new farm pages).
 */
export interface GeneratedSite {
  url: string;
  port: number;
  /** Requests per path with query, as the server received them. */
  hits: Map<string, number>;
  truth: SiteTruth;
  close(): Promise<void>;
}

export interface SiteTruth {
  /** Every article's one normal URL (absolute). */
  articles: string[];
  /** The section list pages' normal URLs (first pages and `?page=n`). */
  listPages: string[];
  /** What the sitemap index lists in all (articles and section first pages), absolute. */
  sitemapUrls: string[];
  /** Paths the site links to that robots.txt disallows for every agent. */
  disallowedPaths: string[];
  crawlDelaySeconds: number;
}

export interface GeneratedSiteOptions {
  /** Articles (default 10,000). */
  articles?: number;
  /** robots.txt's Crawl-delay for `*` (default 0: tests and the bench measure the crawler, not the wait). */
  crawlDelaySeconds?: number;
  /** robots.txt also names the hostile sitemaps (gzip bomb, entity bomb, the 50 MB+ one) as Sitemap lines. */
  robotsNamesHostileSitemaps?: boolean;
}

export const SECTIONS = 20;
export const LIST_PAGE_SIZE = 50;
export const SITEMAP_CHUNK = 2_000;
export const HOSTILE_EXPANDED_BYTES = 256 * 1024 * 1024;
const HUGE_SITEMAP_BYTES = 52 * 1024 * 1024;

export async function startGeneratedSite(options: GeneratedSiteOptions = {}): Promise<GeneratedSite> {
  const count = options.articles ?? 10_000;
  const crawlDelaySeconds = options.crawlDelaySeconds ?? 0;
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const target = req.url ?? '/';
    hits.set(target, (hits.get(target) ?? 0) + 1);
    answer(new URL(target, origin), res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const sectionOf = (i: number) => i % SECTIONS;
  const articlePath = (i: number) => `/s${sectionOf(i)}/p${i}`;
  const articlesIn = (k: number) => Math.ceil(Math.max(0, count - k) / SECTIONS);
  const listPagesOf = (k: number) => Math.max(1, Math.ceil(articlesIn(k) / LIST_PAGE_SIZE));
  const listPath = (k: number, n: number) => (n === 1 ? `/s${k}/` : `/s${k}/?page=${n}`);

  const articles = Array.from({ length: count }, (_, i) => origin + articlePath(i));
  const listPages: string[] = [];
  for (let k = 0; k < SECTIONS; k += 1) for (let n = 1; n <= listPagesOf(k); n += 1) listPages.push(origin + listPath(k, n));
  const sectionFirstPages = Array.from({ length: SECTIONS }, (_, k) => origin + listPath(k, 1));
  const chunks: string[][] = [];
  for (let start = 0; start < count; start += SITEMAP_CHUNK) chunks.push(articles.slice(start, start + SITEMAP_CHUNK));
  const gzMembers = chunks.map((urls) => zlib.gzipSync(urlset(urls)));
  const disallowedPaths = [`/private/notes`, `/s3/drafts/d1`, `/s3/drafts/d2`, `/s1/?sort=date`];

  const html = (title: string, body: string, head = '') =>
    `<!doctype html><html lang="en"><head><title>${title}</title>${head}</head><body>${body}</body></html>`;
  const send = (
    res: http.ServerResponse,
    status: number,
    type: string,
    body: string | Buffer,
    headers: http.OutgoingHttpHeaders = {},
  ): void => {
    res.writeHead(status, { 'content-type': type, ...headers }).end(body);
  };

  function answer(url: URL, res: http.ServerResponse): void {
    const path = url.pathname;
    let match: RegExpExecArray | null;
    if (path === '/robots.txt') {
      return send(
        res,
        200,
        'text/plain',
        [
          'User-agent: *',
          'Disallow: /private/',
          'Disallow: /s3/drafts/',
          'Disallow: /*?sort=',
          `Crawl-delay: ${crawlDelaySeconds}`,
          '',
          `Sitemap: ${origin}/sitemap.xml`,
          ...(options.robotsNamesHostileSitemaps
            ? ['gzip-bomb.xml.gz', 'entity-bomb.xml', 'huge.xml'].map((name) => `Sitemap: ${origin}/hostile/${name}`)
            : []),
          '',
        ].join('\n'),
      );
    }
    if (path === '/llms.txt') {
      // An llms.txt (https://llmstxt.org): a link in the site, one only it names, one on another host.
      return send(
        res,
        200,
        'text/plain; charset=utf-8',
        [
          '# Generated site',
          '',
          '> A site generated for the crawler tests.',
          '',
          '## Pages',
          '',
          `- [Sections](${origin}/sitemaps/sections.xml): the sections sitemap`,
          '- [Only here](/llms-only/page): named by llms.txt alone',
          '',
          '## Optional',
          '',
          '- [Elsewhere](https://elsewhere.invalid/docs.md)',
          '',
        ].join('\n'),
      );
    }
    if (path === '/sitemap.xml') {
      const members = [...gzMembers.map((_, j) => `${origin}/sitemaps/articles-${j}.xml.gz`), `${origin}/sitemaps/sections.xml`];
      return send(
        res,
        200,
        'application/xml',
        `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${members
          .map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`)
          .join('')}</sitemapindex>`,
      );
    }
    if ((match = /^\/sitemaps\/articles-(\d+)\.xml\.gz$/.exec(path)) && gzMembers[Number(match[1])])
      return send(res, 200, 'application/gzip', gzMembers[Number(match[1])]);
    if (path === '/sitemaps/sections.xml') return send(res, 200, 'application/xml', urlset(sectionFirstPages));
    if (path === '/') {
      const links = [
        ...sectionFirstPages.map((u, k) => `<a href="${u}">Section ${k}</a>`),
        `<a href="/calendar/2026/11">Calendar</a>`,
        `<a href="/search?q=a">Search</a>`,
        `<a href="/old/p0">An old address</a>`,
        `<a href="/members/1">Members</a>`,
        `<a href="/private/notes">Notes</a>`,
      ];
      return send(res, 200, 'text/html', html('Home', `<h1>Generated site</h1><nav>${links.join(' ')}</nav>`));
    }
    if ((match = /^\/s(\d+)\/$/.exec(path))) {
      const k = Number(match[1]);
      const n = Number(url.searchParams.get('page') ?? '1');
      if (k >= SECTIONS || !Number.isInteger(n) || n < 1 || n > listPagesOf(k)) return notFound(res);
      const items: string[] = [];
      for (let j = (n - 1) * LIST_PAGE_SIZE; j < Math.min(n * LIST_PAGE_SIZE, articlesIn(k)); j += 1) {
        const i = k + j * SECTIONS;
        items.push(`<li><a href="${articlePath(i)}">Article ${i}</a></li>`);
      }
      const pager = Array.from({ length: listPagesOf(k) }, (_, p) => `<a href="${listPath(k, p + 1)}">${p + 1}</a>`).join(' ');
      const extra =
        k === 3
          ? `<a href="/s3/drafts/d1">Draft 1</a> <a href="/s3/drafts/d2">Draft 2</a>`
          : k === 1
            ? `<a href="/s1/?sort=date">By date</a>`
            : '';
      return send(
        res,
        200,
        'text/html',
        html(`Section ${k}, page ${n}`, `<h1>Section ${k}</h1><ul>${items.join('')}</ul><p>${pager}</p>${extra}`),
      );
    }
    if ((match = /^\/s(\d+)\/p(\d+)(\/print)?$/.exec(path))) {
      const [k, i] = [Number(match[1]), Number(match[2])];
      if (i >= count || sectionOf(i) !== k) return notFound(res);
      const canonical = `<link rel="canonical" href="${origin}${articlePath(i)}">`;
      const next = (i + SECTIONS) % count;
      // The same neighbour in every spelling a normaliser must fold into one.
      const spellings = [
        articlePath(next),
        `${articlePath(next)}/`,
        `${articlePath(next)}#comments`,
        `${articlePath(next)}?utm_source=newsletter&utm_medium=email`,
        `${articlePath(next)}?sessionid=${(i * 7919) % 100_000}`,
        `HTTP://127.0.0.1:${port}${articlePath(next)}`,
      ];
      const links = [
        ...spellings.map((href) => `<a href="${href}">Next</a>`),
        `<a href="${articlePath(i)}/print">Print</a>`,
        i % 10 === 0 ? `<a href="/old/p${i}">Old address</a>` : '',
        i % 50 === 0 ? `<a href="/s${k}/gone-${i}">A page that is gone</a>` : '',
      ];
      const body = `<article><h1>Article ${i}</h1>${`<p>Article ${i} of section ${k} says something worth reading. </p>`.repeat(6)}</article><nav>${links.join(' ')}</nav>`;
      return send(res, 200, 'text/html', html(`Article ${i}`, body, canonical));
    }
    if ((match = /^\/s(\d+)\/gone-(\d+)$/.exec(path)))
      return send(res, 200, 'text/html', html('Page not found', '<h1>Page not found</h1><p>Sorry, this page does not exist.</p>'));
    if ((match = /^\/old\/p(\d+)$/.exec(path))) return send(res, 301, 'text/plain', '', { location: `/moved/p${match[1]}` });
    if ((match = /^\/moved\/p(\d+)$/.exec(path)) && Number(match[1]) < count)
      return send(res, 301, 'text/plain', '', { location: articlePath(Number(match[1])) });
    if ((match = /^\/calendar\/(\d{4})\/(\d{1,2})$/.exec(path))) {
      const month = Number(match[1]) * 12 + Number(match[2]) - 1;
      const at = (m: number) => `/calendar/${Math.floor(m / 12)}/${(m % 12) + 1}`;
      return send(res, 200, 'text/html', html('Calendar', `<a href="${at(month - 1)}">Previous</a> <a href="${at(month + 1)}">Next</a>`));
    }
    if (path === '/search') {
      const q = url.searchParams.get('q') ?? '';
      const links = ['a', 'b', 'c'].map((c) => `<a href="/search?q=${encodeURIComponent(q + c)}&page=1">${q + c}</a>`);
      return send(res, 200, 'text/html', html('Search', links.join(' ')));
    }
    if ((match = /^\/members\/(\d+)$/.exec(path)))
      return send(res, 403, 'text/html', html('Access denied', '<h1>Access denied</h1><p>Complete the security check to continue.</p>'));
    if (path === '/private/notes') return send(res, 200, 'text/html', html('Private', '<p>Nobody should have fetched this.</p>'));
    if (path === '/hostile/gzip-bomb.xml.gz') return hostileGzipBomb(res);
    if (path === '/hostile/entity-bomb.xml') return send(res, 200, 'application/xml', ENTITY_BOMB);
    if (path === '/hostile/huge.xml') return hostileHugeSitemap(res, origin);
    if (path === '/hostile/loop') return send(res, 302, 'text/plain', '', { location: '/hostile/loop' });
    if ((match = /^\/hostile\/farm\/(\d+)$/.exec(path))) {
      const n = Number(match[1]);
      const links = Array.from({ length: 100 }, (_, j) => `<a href="/hostile/farm/${n * 100 + j + 1}">farm</a>`).join(' ');
      return send(res, 200, 'text/html', html(`Farm ${n}`, links));
    }
    return notFound(res);
  }

  return {
    url: origin,
    port,
    hits,
    truth: {
      articles,
      listPages,
      sitemapUrls: [...articles, ...sectionFirstPages],
      disallowedPaths,
      crawlDelaySeconds,
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function urlset(urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls
    .map((loc) => `<url><loc>${loc.replace(/&/g, '&amp;')}</loc></url>`)
    .join('')}</urlset>`;
}

function notFound(res: http.ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
}

// A billion-laughs document: a parser that expands entities builds gigabytes from 1 KB.
const ENTITY_BOMB = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from(
  { length: 9 },
  (_, n) => `<!ENTITY lol${n + 1} "${`&lol${n === 0 ? '' : n};`.repeat(10)}">`,
).join('')}]><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://127.0.0.1/&lol9;</loc></url></urlset>`;

// Made once per process: gzip of 256 MB of zeros is ~250 KB and takes a moment to build.
let gzipBomb: Buffer | null = null;
function hostileGzipBomb(res: http.ServerResponse): void {
  gzipBomb ??= zlib.gzipSync(Buffer.alloc(HOSTILE_EXPANDED_BYTES), { level: 9 });
  res.writeHead(200, { 'content-type': 'application/gzip' }).end(gzipBomb);
}

/** A valid urlset streamed past 50 MB (the protocol's maximum), a thousand entries at a time. */
function hostileHugeSitemap(res: http.ServerResponse, origin: string): void {
  res.writeHead(200, { 'content-type': 'application/xml' });
  res.write('<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
  let sent = 0;
  let n = 0;
  const pump = () => {
    // A thousand entries a write: one write per entry (over a million) took the fixture's own
    // event loop past the map's 20 s fetch budget in a loaded test run.
    while (sent < HUGE_SITEMAP_BYTES) {
      let chunk = '';
      for (let i = 0; i < 1000; i += 1) chunk += `<url><loc>${origin}/huge/${n++}</loc></url>`;
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end('</urlset>');
  };
  res.on('close', () => (sent = HUGE_SITEMAP_BYTES));
  pump();
}
