import type { HTMLElement } from 'node-html-parser';

/** The base the page's relative URLs resolve against: its <base href> if any, else its own URL. */
export function documentBaseUrl(root: HTMLElement, pageUrl: string): string {
  // querySelectorAll walks iteratively (querySelector recurses per level when nothing matches).
  const base = root.querySelectorAll('base[href]')[0]?.getAttribute('href');
  if (!base) return pageUrl;
  try {
    return new URL(base, pageUrl).toString();
  } catch {
    return pageUrl;
  }
}

// Already absolute and plain: nothing to resolve (most links of most pages; URL parsing is the cost).
const PLAIN_ABSOLUTE = /^https?:\/\/[^\s\\]+$/;

/** Resolves a URL found in the page; leaves it as it was when it does not parse (e.g. "javascript:"). */
export function absoluteUrl(value: string, base: string): string {
  if (PLAIN_ABSOLUTE.test(value)) return value;
  try {
    return new URL(value.trim(), base).toString();
  } catch {
    return value;
  }
}

/** An href resolved against its base when it names an http(s) resource; null for anything else (javascript:, data:, nonsense). */
export function httpUrlAt(href: string | null | undefined, base: string): string | null {
  if (!href) return null;
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

export const URL_ATTRIBUTES = ['href', 'src', 'poster', 'action', 'data-src'];
