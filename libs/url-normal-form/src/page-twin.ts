import { type NormalUrl, normalUrl } from './url-normal-form';

/** What a fetch of a page showed about which page it is. */
export interface PageAnswer {
  /** The URL that was asked for. */
  url: string;
  statusCode: number;
  /** The Location of a 3xx answered as it is (redirects not followed), else null. */
  location: string | null;
  /** The URL that answered (another after redirects a browser followed), else `url`. */
  answeredUrl: string;
  /** The href of a `<link rel=canonical>`, resolved (never og:url), else null. */
  canonicalLink: string | null;
}

export interface PageTwin {
  reason: 'redirect' | 'canonical';
  /** The page it is, in normal form. */
  url: string;
}

/**
 * Whether a crawl's page is another page (decision 0035): a 3xx to another page, an answer from
 * another page (a browser followed redirects), or a `<link rel=canonical>` naming another page of
 * the same host (`www.` aside). Pages are compared in normal form, so a redirect or canonical to
 * another spelling of the page (`/a` → `/a/`, a fragment, a tracking parameter) makes no twin.
 * Not trusted as a canonical: one on another host (syndication: the page stands on its own) and
 * the site's root named by a deeper page (a template that writes the home page as every page's
 * canonical would otherwise leave a crawl with one page).
 */
export function pageTwinOf(answer: PageAnswer): PageTwin | null {
  const page = normalUrl(answer.url);
  if (!page) return null;
  if (answer.statusCode >= 300 && answer.statusCode < 400 && answer.location !== null) {
    const target = normalUrl(answer.location, answer.answeredUrl);
    return target && target.key !== page.key ? { reason: 'redirect', url: target.url } : null;
  }
  const answered = normalUrl(answer.answeredUrl);
  if (answered && answered.key !== page.key) return { reason: 'redirect', url: answered.url };
  const canonical = answer.canonicalLink ? normalUrl(answer.canonicalLink, answer.answeredUrl) : null;
  if (!canonical || canonical.key === page.key || siteOf(canonical.host) !== siteOf(page.host)) return null;
  return namesRootFromDeeper(canonical, answer.answeredUrl) ? null : { reason: 'canonical', url: canonical.url };
}

function namesRootFromDeeper(canonical: NormalUrl, answeredUrl: string): boolean {
  const named = new URL(canonical.url);
  return named.pathname === '/' && named.search === '' && new URL(answeredUrl).pathname !== '/';
}

function siteOf(host: string): string {
  return host.replace(/^www\./, '');
}
