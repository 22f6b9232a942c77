import LinkHeader from 'http-link-header';
import { httpUrlAt } from './absolute-urls';
import { parse } from 'node-html-parser';

/**
 * A site's own markdown (decision 0042): asked for by content negotiation (RFC 9110 §12.5.1 with
 * the text/markdown media type of RFC 7763), or found through a markdown alternate the page links
 * (a Link header, RFC 8288, or a <link rel="alternate" type="text/markdown">), and checked to be
 * markdown before it is used.
 */

/** Markdown first, the page's HTML next, anything after: a site without markdown answers as it always does. */
export const SITE_MARKDOWN_ACCEPT = 'text/markdown, text/x-markdown;q=0.95, text/html;q=0.9, application/xhtml+xml;q=0.9, */*;q=0.8';

const MARKDOWN_TYPES = new Set(['text/markdown', 'text/x-markdown']);

export function isMarkdownType(contentType: string | null): boolean {
  return MARKDOWN_TYPES.has((contentType ?? '').split(';')[0]!.trim().toLowerCase());
}

/** The request's headers with Accept preferring markdown, unless the client chose its own Accept. */
export function withMarkdownAccept(headers: Record<string, string> | null): Record<string, string> {
  const own = headers ?? {};
  return Object.keys(own).some((name) => name.toLowerCase() === 'accept') ? own : { ...own, accept: SITE_MARKDOWN_ACCEPT };
}

// A document that opens like an HTML page, or whose text is mostly block markup.
const HTML_START = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/i;
const BLOCK_TAG = /<\/?(?:div|p|span|section|article|main|nav|header|footer|ul|ol|li|table|tr|td|script|style|meta|link)\b[^>]*>/gi;

/** Why a text a site served as markdown is not usable as markdown, or null when it is. */
export function siteMarkdownProblem(text: string | null): string | null {
  if (text === null) return 'the site sent a binary body under a markdown type';
  if (text.trim() === '') return 'the site sent an empty markdown answer';
  if (text.includes('\u0000')) return 'the site sent a binary body under a markdown type';
  if (HTML_START.test(text)) return 'the site answered HTML under a markdown type';
  // Markdown may hold some inline HTML; a page of markup is not markdown.
  const sample = text.slice(0, 200_000);
  const markup = [...sample.matchAll(BLOCK_TAG)].reduce((sum, match) => sum + match[0].length, 0);
  if (markup > 20 && markup / sample.length > 0.3) return 'the site answered HTML under a markdown type';
  return null;
}

/** A markdown alternate a page offers, by a Link header first, then a <link> element in its head. */
export interface MarkdownAlternate {
  url: string;
  offeredBy: 'link_header' | 'link_element';
}

// The head's <link> elements are in its first bytes; a page is not parsed whole for them.
const HEAD_BYTES = 256 * 1024;
const LINK_ELEMENT = /<link\b[^>]*>/gi;

export function markdownAlternateOf(
  headers: Record<string, string | string[] | undefined>,
  html: string | null,
  pageUrl: string,
): MarkdownAlternate | null {
  const values = headers.link === undefined ? [] : Array.isArray(headers.link) ? headers.link : [headers.link];
  for (const value of values) {
    try {
      const ref = LinkHeader.parse(value).refs.find((link) => hasRel(link.rel, 'alternate') && isMarkdownType(link.type ?? null));
      const url = ref && httpUrlAt(ref.uri, pageUrl);
      if (url) return { url, offeredBy: 'link_header' };
    } catch {
      // A malformed Link header offers nothing.
    }
  }
  if (!html) return null;
  const head = html.slice(0, HEAD_BYTES);
  const bodyAt = head.search(/<body[\s>]/i);
  for (const tag of (bodyAt >= 0 ? head.slice(0, bodyAt) : head).match(LINK_ELEMENT) ?? []) {
    const element = parse(tag).querySelector('link');
    if (!element || !hasRel(element.getAttribute('rel'), 'alternate') || !isMarkdownType(element.getAttribute('type') ?? null)) continue;
    const url = httpUrlAt(element.getAttribute('href'), pageUrl);
    if (url) return { url, offeredBy: 'link_element' };
  }
  return null;
}

function hasRel(rel: string | undefined, wanted: string): boolean {
  return (rel ?? '').toLowerCase().split(/\s+/).includes(wanted);
}
