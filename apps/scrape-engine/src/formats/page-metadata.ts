import type { PageMetadata } from '@lib/contracts';
import { absoluteUrl } from './absolute-urls';
import { elementsOf, type ParsedPage, textOf } from './parsed-page';

// A page of navigation can hold thousands of links; the list is for following them, not an index of the web.
export const MAX_METADATA_LINKS = 1000;

/**
 * What an LLM pipeline wants beside the page's text: its title, description, language, canonical
 * URL and the links it holds (absolute http(s) URLs, first occurrence order, fragments dropped),
 * read from the same parse as the markdown in one walk of the page.
 */
export function pageMetadataOf(page: ParsedPage): PageMetadata {
  const metas = new Map<string, string>();
  const links = new Set<string>();
  let title: string | null = null;
  let language: string | null = null;
  let canonical: string | null = null;
  for (const el of elementsOf(page.root)) {
    const tag = el.rawTagName.toLowerCase();
    if (tag === 'a') {
      if (links.size >= MAX_METADATA_LINKS) continue;
      const href = absoluteUrl(el.getAttribute('href') ?? '', page.baseUrl);
      if (/^https?:\/\//i.test(href)) links.add(href.replace(/#.*$/, ''));
    } else if (tag === 'meta') {
      const key = (el.getAttribute('name') ?? el.getAttribute('property') ?? el.getAttribute('http-equiv') ?? '').toLowerCase();
      const content = el.getAttribute('content')?.trim();
      if (key && content && !metas.has(key)) metas.set(key, content);
    } else if (tag === 'title' && title === null) {
      title = textOf(el).replace(/\s+/g, ' ').trim() || null;
    } else if (tag === 'html' && language === null) {
      language = el.getAttribute('lang')?.trim() || null;
    } else if (tag === 'link' && canonical === null && /(^|\s)canonical(\s|$)/i.test(el.getAttribute('rel') ?? '')) {
      canonical = el.getAttribute('href')?.trim() || null;
    }
  }
  const canonicalSource = canonical ? 'link' : metas.get('og:url') ? 'og:url' : null;
  canonical ??= metas.get('og:url') ?? null;
  return {
    title: title ?? metas.get('og:title') ?? null,
    description: metas.get('description') ?? metas.get('og:description') ?? metas.get('twitter:description') ?? null,
    language: language ?? metas.get('content-language') ?? null,
    canonical_url: canonical ? absoluteUrl(canonical, page.baseUrl) : null,
    canonical_source: canonicalSource,
    final_url: page.url,
    links: [...links],
  };
}
