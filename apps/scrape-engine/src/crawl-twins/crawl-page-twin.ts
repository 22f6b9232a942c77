import type { DuplicateOf, ScrapeExecutionFacts, ScrapeResultBody } from '@lib/contracts';
import { type NormalUrl, normalUrl } from '@lib/url-normal-form';

/**
 * Whether a crawl's page is another page (issue 61), read from its scrape: a 3xx with a Location
 * (the page was fetched with redirects not followed), an answer from another URL than the one
 * asked (a browser follows redirects itself), or a rel=canonical naming another URL of the same
 * host (`www.` aside). URLs are compared in the crawl's normal form, so `/a` and `/a/`, a fragment
 * or a tracking parameter never make a page a twin of itself. A canonical on another host is the
 * page's syndication, not a twin: the page stands on its own. Null when the site never answered.
 */
export function twinOf(requestUrl: string, facts: ScrapeExecutionFacts, result: ScrapeResultBody): DuplicateOf | null {
  if (!facts.billable) return null;
  const page = normalUrl(requestUrl);
  if (!page) return null;
  const location = redirectLocation(facts, result);
  if (location !== null) {
    const target = normalUrl(location, facts.response?.final_url ?? requestUrl);
    return target ? { reason: 'redirect', url: target.url } : null;
  }
  const answeredAt = result.metadata?.final_url ?? facts.response?.final_url ?? requestUrl;
  const answered = normalUrl(answeredAt);
  if (answered && answered.key !== page.key) return { reason: 'redirect', url: answered.url };
  const canonical = trustedCanonical(result, answeredAt);
  if (canonical && canonical.key !== page.key && siteOf(canonical.host) === siteOf(page.host))
    return { reason: 'canonical', url: canonical.url };
  return null;
}

/** The Location of a redirect answered as it is (a 3xx with one), else null. */
export function redirectLocation(facts: ScrapeExecutionFacts, result: ScrapeResultBody): string | null {
  if (result.statusCode < 300 || result.statusCode >= 400) return null;
  const header = facts.response?.headers.location;
  const location = Array.isArray(header) ? header[0] : header;
  return typeof location === 'string' && location.trim() !== '' ? location.trim() : null;
}

/**
 * A canonical a crawl may drop a page for: a <link rel=canonical> (og:url is often the site's or a
 * section's address on every page), and not the site's root named by a deeper page (a template that
 * writes the home page as every page's canonical would otherwise leave a crawl with one page).
 */
function trustedCanonical(result: ScrapeResultBody, answeredAt: string): NormalUrl | null {
  const metadata = result.metadata;
  if (!metadata?.canonical_url || metadata.canonical_source !== 'link') return null;
  const canonical = normalUrl(metadata.canonical_url, answeredAt);
  if (!canonical) return null;
  const root = new URL(canonical.url).pathname === '/' && new URL(canonical.url).search === '';
  return root && new URL(answeredAt).pathname !== '/' ? null : canonical;
}

function siteOf(host: string): string {
  return host.replace(/^www\./, '');
}
