import { parse } from 'node-html-parser';

/** Links read from one page; a page listing more is a farm, and the rest are not read. */
export const MAX_LINKS_PER_PAGE = 5_000;

export interface PageLinks {
  /** Hrefs as written, resolved against the page's base. */
  links: string[];
  /** The page's rel=canonical, resolved, or null. */
  canonical: string | null;
}

/**
 * The links of an HTML page (`a`, `area`, with `<base href>` honoured) and its `rel=canonical`.
 * `rel=nofollow` is not honoured: it asks search engines not to pass rank, not crawlers to ignore a
 * URL of the same site. Resolution against the base is the WHATWG parser's.
 */
export function readPageLinks(html: string, pageUrl: string): PageLinks {
  const root = parse(html, { blockTextElements: { script: false, style: false, noscript: false, pre: true } });
  const baseHref = root.querySelector('base[href]')?.getAttribute('href');
  let base = pageUrl;
  if (baseHref) {
    try {
      base = new URL(baseHref, pageUrl).href;
    } catch {
      // An unusable <base> is ignored, as browsers do.
    }
  }
  const links: string[] = [];
  for (const element of root.querySelectorAll('a[href], area[href]')) {
    if (links.length >= MAX_LINKS_PER_PAGE) break;
    const resolved = resolve(element.getAttribute('href') ?? '', base);
    if (resolved) links.push(resolved);
  }
  let canonical: string | null = null;
  for (const link of root.querySelectorAll('link[rel][href]')) {
    const rel = (link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
    if (rel.includes('canonical')) {
      canonical = resolve(link.getAttribute('href') ?? '', base);
      break;
    }
  }
  return { links, canonical };
}

function resolve(href: string, base: string): string | null {
  const trimmed = href.trim();
  if (!trimmed || /^(javascript|mailto|tel|data|about|blob):/i.test(trimmed)) return null;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return null;
  }
}
