import type { ScrapeExecutionFacts, ScrapeResultBody } from '@lib/contracts';
import fc from 'fast-check';
import { twinOf } from './crawl-page-twin';

function scrape(
  answer: { status?: number; location?: string; finalUrl?: string; canonical?: string; source?: 'link' | 'og:url'; billable?: boolean },
  url: string,
): [ScrapeExecutionFacts, ScrapeResultBody] {
  const finalUrl = answer.finalUrl ?? url;
  const facts = {
    billable: answer.billable ?? true,
    response: { headers: answer.location ? { location: answer.location } : {}, redirects: [], final_url: finalUrl },
  } as unknown as ScrapeExecutionFacts;
  const result = {
    statusCode: answer.status ?? 200,
    metadata: {
      title: null,
      description: null,
      language: null,
      canonical_url: answer.canonical ?? null,
      canonical_source: answer.canonical ? (answer.source ?? 'link') : null,
      final_url: finalUrl,
      links: [],
    },
  } as unknown as ScrapeResultBody;
  return [facts, result];
}

const page = 'https://example.com/docs/intro';

describe('twinOf: a crawl page that is another page', () => {
  it('is a redirect when the page answered a 3xx with a Location (resolved against the page)', () => {
    expect(twinOf(page, ...scrape({ status: 301, location: '../guide?utm_source=x' }, page))).toEqual({
      reason: 'redirect',
      url: 'https://example.com/guide',
    });
  });

  it('is a redirect when a browser ended on another page', () => {
    expect(twinOf(page, ...scrape({ finalUrl: 'https://example.com/docs/start' }, page))).toEqual({
      reason: 'redirect',
      url: 'https://example.com/docs/start',
    });
  });

  it('is a canonical twin when a <link rel=canonical> names another page of its host, www. aside', () => {
    const print = 'https://www.example.com/docs/intro/print';
    expect(twinOf(print, ...scrape({ canonical: 'https://example.com/docs/intro' }, print))).toEqual({
      reason: 'canonical',
      url: 'https://example.com/docs/intro',
    });
  });

  it('is no twin for a canonical read from og:url, on another host, or naming the root from a deeper page', () => {
    expect(twinOf(page, ...scrape({ canonical: 'https://example.com/docs', source: 'og:url' }, page))).toBeNull();
    expect(twinOf(page, ...scrape({ canonical: 'https://news.example.org/docs/intro' }, page))).toBeNull();
    expect(twinOf(page, ...scrape({ canonical: 'https://example.com/' }, page))).toBeNull();
  });

  it('is no twin when the site never answered', () => {
    expect(twinOf(page, ...scrape({ status: 301, location: '/elsewhere', billable: false }, page))).toBeNull();
  });

  // The class the crawl loses pages to if it is wrong: a page declared a twin of its own spelling is
  // admitted as itself (already known) and never scraped.
  it('never makes a page a twin of another spelling of itself', () => {
    const segment = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
    const spelling = fc.constantFrom<(u: URL) => string>(
      (u) => u.toString(),
      (u) => `${u.toString()}/`,
      (u) => `${u.toString()}#section`,
      (u) => `${u.toString()}?utm_source=news&utm_medium=mail`,
      (u) => u.toString().replace('https://example.com', 'HTTPS://EXAMPLE.COM:443'),
      (u) => u.toString().replace(/\/([^/]+)$/, '/./$1'),
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), spelling, spelling, (segments, asked, named) => {
        const url = new URL(`https://example.com/${segments.join('/')}`);
        const requested = asked(url);
        expect(twinOf(requested, ...scrape({ canonical: named(url) }, requested))).toBeNull();
        expect(twinOf(requested, ...scrape({ finalUrl: named(url) }, requested))).toBeNull();
      }),
    );
  });
});
