import type { DuplicateOf, ScrapeExecutionFacts, ScrapeResultBody } from '@lib/contracts';
import { pageTwinOf } from '@lib/url-normal-form';

/**
 * Whether a crawl's page is another page, read from its scrape (the rule: pageTwinOf). A 3xx is
 * seen only when the page was fetched with redirects not followed (simple mode); a browser follows
 * them, and its page then answered from another URL. Only a `<link rel=canonical>` counts, not
 * og:url (metadata.canonical_source). Null when the site never answered.
 */
export function twinOf(requestUrl: string, facts: ScrapeExecutionFacts, result: ScrapeResultBody): DuplicateOf | null {
  if (!facts.billable) return null;
  const metadata = result.metadata;
  return pageTwinOf({
    url: requestUrl,
    statusCode: result.statusCode,
    location: redirectLocation(facts, result),
    answeredUrl: metadata?.final_url ?? facts.response?.final_url ?? requestUrl,
    canonicalLink: metadata?.canonical_source === 'link' ? metadata.canonical_url : null,
  });
}

/** The Location of a redirect answered as it is (a 3xx with one), else null. */
export function redirectLocation(facts: ScrapeExecutionFacts, result: ScrapeResultBody): string | null {
  if (result.statusCode < 300 || result.statusCode >= 400) return null;
  const header = facts.response?.headers.location;
  const location = Array.isArray(header) ? header[0] : header;
  return typeof location === 'string' && location.trim() !== '' ? location.trim() : null;
}
