import type { PageMetadata } from '@lib/contracts';
import { absoluteUrl } from './absolute-urls';
import { ParsedPage } from './parsed-page';

// A page of navigation can hold thousands of links; the list is for following them, not an index of the web.
export const MAX_METADATA_LINKS = 1000;

/**
 * What an LLM pipeline wants beside the page's text: its title, description, language, canonical
 * URL and the links it holds (absolute http(s) URLs, first occurrence order, fragments dropped),
 * read from the same parse as the markdown.
 */
export function pageMetadataOf(page: ParsedPage): PageMetadata {
  const root = page.root;
  const meta = (selector: string) => root.querySelector(selector)?.getAttribute('content')?.trim() || null;
  const title = root.querySelector('title')?.text.replace(/\s+/g, ' ').trim() || meta('meta[property="og:title"]') || null;
  const description = meta('meta[name="description"]') ?? meta('meta[property="og:description"]') ?? meta('meta[name="twitter:description"]');
  const language = root.querySelector('html')?.getAttribute('lang')?.trim() || meta('meta[http-equiv="content-language"]') || null;
  const canonical = root.querySelector('link[rel="canonical"]')?.getAttribute('href')?.trim() || meta('meta[property="og:url"]');
  const links = new Set<string>();
  for (const a of root.querySelectorAll('a[href]')) {
    if (links.size >= MAX_METADATA_LINKS) break;
    const href = absoluteUrl(a.getAttribute('href') ?? '', page.baseUrl);
    if (!/^https?:\/\//i.test(href)) continue;
    links.add(href.replace(/#.*$/, ''));
  }
  return { title, description, language, canonical_url: canonical ? absoluteUrl(canonical, page.baseUrl) : null, links: [...links] };
}
