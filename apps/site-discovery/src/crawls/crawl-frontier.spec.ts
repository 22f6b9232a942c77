import fc from 'fast-check';
import type { FetchedResponse } from '@lib/http-fetch';
import { normalUrl } from '@lib/url-normal-form';
import { RobotsBook } from '../robots/robots-book';
import { SiteScope } from '../scope/site-scope';
import { type PageCandidate, admissionOf, candidateOf, pageJobId, sortLinks, standaloneJobId } from './crawl-frontier';

// The crawl's own rules, without a database, a bus or a browser: which links a page's crawl takes,
// in which order, at which depth, and how many while max_pages has room. The e2e specs and the kill
// drills prove the same rules through the whole platform; these say which rule broke.

const CRAWL = '0b8f4c1e-6f5a-4c43-9d1f-2d5b3f4a9e10';

function robotsAnswering(status: number, text = ''): RobotsBook {
  const answer: FetchedResponse = {
    url: 'https://example.com/robots.txt',
    statusCode: status,
    statusMessage: '',
    headers: {},
    contentType: 'text/plain',
    body: Buffer.from(text),
    text,
    redirects: [],
    timings: { proxy_ms: 0, navigation_ms: 0, total_ms: 0 },
  };
  return new RobotsBook(async () => answer, false);
}

function rules(overrides: { maxDepth?: number; robots?: RobotsBook; includePaths?: string[]; excludePaths?: string[] } = {}) {
  return {
    scope: new SiteScope({
      startHost: 'example.com',
      includeSubdomains: false,
      domains: [],
      includePaths: overrides.includePaths ?? [],
      excludePaths: overrides.excludePaths ?? [],
    }),
    robots: overrides.robots ?? robotsAnswering(404),
    maxDepth: overrides.maxDepth ?? 3,
  };
}

const candidate = (path: string, depth: number): PageCandidate => candidateOf(CRAWL, normalUrl(`https://example.com${path}`)!, depth);

describe('the crawl frontier: which links a page adds', () => {
  it('keeps the order links were found in, each page once however it is spelled', async () => {
    const sorted = await sortLinks(
      CRAWL,
      ['https://example.com/b', 'https://example.com/a', 'https://EXAMPLE.com/b#top', 'https://example.com/a?', 'https://example.com/c'],
      1,
      rules(),
    );
    expect(sorted.candidates.map((c) => c.url)).toEqual(['https://example.com/b', 'https://example.com/a', 'https://example.com/c']);
    expect(sorted.refused).toEqual({});
  });

  it('names a page by the same job id however often it is found, and by another in another crawl', () => {
    const first = candidate('/a', 1);
    expect(candidate('/a', 2).jobId).toBe(first.jobId);
    expect(pageJobId(CRAWL, first.key)).toBe(first.jobId);
    expect(pageJobId('5d0c6a8e-1f0e-4a52-8b8b-6f2c9e3b7a41', first.key)).not.toBe(first.jobId);
    expect(standaloneJobId(CRAWL, first.key)).not.toBe(first.jobId);
    expect(first.jobId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('counts a link outside the site, outside the paths asked for, or a trap, and does not add it', async () => {
    const sorted = await sortLinks(
      CRAWL,
      [
        'https://other.example/a',
        'https://example.com/private/x',
        'https://example.com/a/b/a/b/a/b',
        'https://example.com/docs/ok',
        'mailto:someone@example.com',
      ],
      1,
      rules({ excludePaths: ['/private/**'] }),
    );
    expect(sorted.candidates.map((c) => c.url)).toEqual(['https://example.com/docs/ok']);
    expect(sorted.refused).toEqual({ scope: 2, trap: 1 });
  });

  it('counts what robots.txt disallows, and disallows everything when robots.txt answers 5xx', async () => {
    const disallowing = robotsAnswering(200, 'User-agent: *\nDisallow: /admin');
    const sorted = await sortLinks(CRAWL, ['https://example.com/admin/x', 'https://example.com/y'], 1, rules({ robots: disallowing }));
    expect(sorted.candidates.map((c) => c.url)).toEqual(['https://example.com/y']);
    expect(sorted.refused).toEqual({ robots: 1 });
    const failing = await sortLinks(CRAWL, ['https://example.com/y'], 1, rules({ robots: robotsAnswering(503) }));
    expect(failing).toEqual({ candidates: [], refused: { robots: 1 } });
  });

  it.each([
    [0, 0, 1],
    [0, 1, 0],
    [1, 1, 1],
    [1, 2, 0],
    [2, 2, 1],
  ])('max_depth %i: a link found at depth %i is added %i time(s), else counted under depth', async (maxDepth, depth, added) => {
    const sorted = await sortLinks(CRAWL, ['https://example.com/p'], depth, rules({ maxDepth }));
    expect(sorted.candidates).toHaveLength(added);
    expect(sorted.candidates[0]?.depth ?? depth).toBe(depth);
    expect(sorted.refused).toEqual(added ? {} : { depth: 1 });
  });

  it('counts a link under the first rule it fails: scope, then robots, then depth', async () => {
    const robots = robotsAnswering(200, 'User-agent: *\nDisallow: /admin');
    const sorted = await sortLinks(CRAWL, ['https://other.example/admin', 'https://example.com/admin'], 9, rules({ maxDepth: 1, robots }));
    expect(sorted.refused).toEqual({ scope: 1, robots: 1 });
  });
});

describe('the crawl frontier: admission within max_pages', () => {
  const crawl = (admitted: number, maxPages: number) => ({ admitted, maxPages, skipped: { scope: 2 } });

  it('takes new pages in order while max_pages has room, and counts the rest over_limit', () => {
    const candidates = ['/a', '/b', '/c', '/d', '/e'].map((p) => candidate(p, 1));
    const { taken, skipped } = admissionOf(candidates, crawl(8, 10), new Set(), { depth: 1 });
    expect(taken.map((c) => c.url)).toEqual(['https://example.com/a', 'https://example.com/b']);
    expect(skipped).toEqual({ scope: 2, depth: 1, over_limit: 3 });
  });

  it('stops at max_pages: a full crawl takes nothing, however many pages come', () => {
    const { taken, skipped } = admissionOf([candidate('/a', 1)], crawl(10, 10), new Set(), {});
    expect(taken).toEqual([]);
    expect(skipped.over_limit).toBe(1);
  });

  it('does not admit a page the crawl already has, nor count it over the limit', () => {
    const a = candidate('/a', 1);
    const { taken, skipped } = admissionOf([a, candidate('/b', 1)], crawl(10, 11), new Set([a.key]), {});
    expect(taken.map((c) => c.url)).toEqual(['https://example.com/b']);
    expect(skipped.over_limit).toBeUndefined();
  });

  it('keeps the smallest depth a page was found at, whichever came first (a sitemap listing the start page)', () => {
    const { taken } = admissionOf(
      [candidate('/', 1), candidate('/x', 1), candidate('/', 0), candidate('/x', 2)],
      crawl(0, 10),
      new Set(),
      {},
    );
    expect(taken.map((c) => [c.url, c.depth])).toEqual([
      ['https://example.com/', 0],
      ['https://example.com/x', 1],
    ]);
  });

  it('never passes max_pages, never takes a key twice or one already known, and accounts for every new page', () => {
    const paths = fc.constantFrom('/a', '/b', '/c', '/d', '/e', '/f', '/g', '/h');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(paths, fc.integer({ min: 0, max: 3 })), { maxLength: 30 }),
        fc.subarray(['/a', '/b', '/c', '/d', '/e', '/f', '/g', '/h']),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 10 }),
        (found, knownPaths, admitted, maxPages) => {
          const candidates = found.map(([path, depth]) => candidate(path, depth));
          const known = new Set(knownPaths.map((p) => candidate(p, 0).key));
          const { taken, skipped } = admissionOf(candidates, { admitted, maxPages, skipped: {} }, known, {});
          const fresh = new Set(candidates.map((c) => c.key).filter((k) => !known.has(k)));
          expect(admitted + taken.length).toBeLessThanOrEqual(Math.max(admitted, maxPages));
          expect(new Set(taken.map((c) => c.key)).size).toBe(taken.length);
          expect(taken.some((c) => known.has(c.key))).toBe(false);
          expect(taken.length + (skipped.over_limit ?? 0)).toBe(fresh.size);
          for (const c of taken) expect(c.depth).toBe(Math.min(...candidates.filter((d) => d.key === c.key).map((d) => d.depth)));
        },
      ),
    );
  });
});
