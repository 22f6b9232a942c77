import { normalUrl } from '@lib/url-normal-form';
import type { LlmsTxtLink } from './llms-txt-document';

/** What an index entry is made from: a crawled page's own metadata and its markdown. */
export interface IndexedPage {
  url: string;
  /** <title>, else og:title. */
  title: string | null;
  /** The meta description, else og:description. */
  description: string | null;
  /** The page as markdown (main content when the crawl asked for it): the description's fallback. */
  markdown: string | null;
}

export interface WrittenLlmsTxt {
  title: string;
  summary: string | null;
  sections: Array<{ name: string; optional: boolean; links: LlmsTxtLink[] }>;
  /** The file: H1, blockquote summary, H2 sections of `- [title](url): description` (llmstxt.org). */
  text: string;
}

const TITLE_MAX = 200;
const DESCRIPTION_MAX = 300;
/** A paragraph shorter than this is a caption or a button, not a page's description. */
const PARAGRAPH_MIN = 40;
/** The description's fallback reads the page's first paragraphs, not the whole page. */
const MARKDOWN_READ = 20_000;
/** Where a title's site name sits apart from the page's own: "Install — Example Docs". */
const TITLE_PARTS = /\s+[|–—·•»:-]\s+/;
/** Paths that are archives of other pages: listed under "Optional", as llmstxt.org reserves it for what a reader may skip. */
const ARCHIVE_SEGMENTS = new Set([
  'tag',
  'tags',
  'category',
  'categories',
  'author',
  'authors',
  'page',
  'archive',
  'archives',
  'search',
  'topics',
]);

/**
 * An llms.txt for a site from its crawled pages, with no model: the H1 is the site's name (the part
 * most page titles share, else the start page's title, else the host), the summary the start page's
 * description, and each other page a link under the section of its first path segment, named by its
 * own title (the site's name taken off) and described by its meta description or, lacking one, its
 * first paragraph's first sentences. Archive paths go under "Optional". What it writes reads back
 * through readLlmsTxt as the same links (tested as a property).
 */
export function writeLlmsTxt(startUrl: string, pages: IndexedPage[]): WrittenLlmsTxt {
  const startKey = normalUrl(startUrl)?.key ?? startUrl;
  const keyed = pages.map((page) => ({ page, key: normalUrl(page.url)?.key ?? page.url }));
  const start = keyed.find(({ key }) => key === startKey)?.page ?? null;
  const affix = sharedTitlePart(pages.map((page) => page.title));
  const siteTitle =
    headingText(oneLine(affix ?? (start?.title ? ownTitle(start.title, null) : ''), TITLE_MAX)) || new URL(startUrl).hostname;
  const summary = start ? descriptionOf(start, siteTitle) : null;
  const groups = new Map<string, { name: string; optional: boolean; links: Array<LlmsTxtLink & { path: string }> }>();
  const seen = new Set<string>();
  for (const { page, key } of keyed) {
    if (key === startKey || seen.has(key)) continue;
    seen.add(key);
    const url = new URL(page.url);
    const title = linkText(ownTitle(page.title ?? '', affix) || firstHeading(page.markdown) || pathTitle(url) || url.href);
    const { name, optional } = sectionOf(url);
    const group = groups.get(name) ?? { name, optional, links: [] };
    groups.set(name, group);
    group.links.push({ title, url: linkTarget(url.href), description: descriptionOf(page, title), path: url.pathname + url.search });
  }
  const sections = [...groups.values()]
    .sort((a, b) => Number(a.optional) - Number(b.optional) || b.links.length - a.links.length || a.name.localeCompare(b.name))
    .map((group) => ({
      name: group.name,
      optional: group.optional,
      links: group.links.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map(({ path: _path, ...link }) => link),
    }));
  const lines = [`# ${siteTitle}`, ''];
  if (summary) lines.push(`> ${summary}`, '');
  for (const section of sections) {
    lines.push(`## ${section.name}`, '');
    for (const link of section.links) lines.push(`- [${link.title}](${link.url})${link.description ? `: ${link.description}` : ''}`);
    lines.push('');
  }
  return { title: siteTitle, summary, sections, text: lines.join('\n') };
}

/** The title part (first or last, between separators) that at least half the titles share, if two or more do. */
function sharedTitlePart(titles: Array<string | null>): string | null {
  const counts = new Map<string, number>();
  let titled = 0;
  for (const title of titles) {
    if (!title) continue;
    titled += 1;
    const parts = title.split(TITLE_PARTS).map((part) => part.trim());
    if (parts.length < 2) continue;
    for (const part of new Set([parts[0]!, parts.at(-1)!])) if (part) counts.set(part, (counts.get(part) ?? 0) + 1);
  }
  let best: [string, number] | null = null;
  for (const entry of counts) if (!best || entry[1] > best[1]) best = entry;
  return best && best[1] >= 2 && best[1] * 2 >= titled ? best[0] : null;
}

/** The page's own title: the site's name taken off its end or start (kept whole when nothing else is left). */
function ownTitle(title: string, siteName: string | null): string {
  const whole = oneLine(title, Number.POSITIVE_INFINITY);
  if (!siteName) return oneLine(whole, TITLE_MAX);
  const separator = TITLE_PARTS.source;
  const name = siteName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const own = whole.replace(new RegExp(`${separator}${name}$`), '').replace(new RegExp(`^${name}${separator}`), '');
  return oneLine(own || whole, TITLE_MAX);
}

function firstHeading(markdown: string | null): string {
  const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec((markdown ?? '').slice(0, MARKDOWN_READ));
  return heading ? plainText(heading[1]!) : '';
}

/** The last path segment as words ("getting-started.html" → "Getting started"), else the host. */
function pathTitle(url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).at(-1);
  return last ? words(last.replace(/\.[a-z0-9]{1,5}$/i, '')) : url.hostname;
}

function sectionOf(url: URL): { name: string; optional: boolean } {
  const segments = url.pathname.split('/').filter(Boolean);
  const inFolder = segments.length >= 2 || (segments.length === 1 && url.pathname.endsWith('/'));
  if (!inFolder) return { name: 'Pages', optional: false };
  if (ARCHIVE_SEGMENTS.has(segments[0]!.toLowerCase())) return { name: 'Optional', optional: true };
  const name = headingText(words(segments[0]!));
  // "Optional" means skippable to a reader of llms.txt: a folder of that name is not made one by its name.
  return { name: name.toLowerCase() === 'optional' ? 'Optional pages' : name || 'Pages', optional: false };
}

/** The meta description, else the first paragraph's first sentences; null when neither says more than the title. */
function descriptionOf(page: IndexedPage, title: string): string | null {
  const described = page.description ? sentencesWithin(oneLine(page.description, Number.POSITIVE_INFINITY), DESCRIPTION_MAX) : '';
  const text = described || firstParagraph(page.markdown);
  return text && text.toLowerCase() !== title.toLowerCase() ? text : null;
}

function firstParagraph(markdown: string | null): string {
  for (const block of (markdown ?? '').slice(0, MARKDOWN_READ).split(/\n\s*\n/)) {
    const trimmed = block.trim();
    if (/^(?:#|[-*+]\s|\d+[.)]\s|>|\||!\[|```|~~~|<|\[!\[)/.test(trimmed)) continue;
    const text = plainText(trimmed);
    if (text.length >= PARAGRAPH_MIN && /[a-z]/i.test(text)) return sentencesWithin(text, 200);
  }
  return '';
}

/** Markdown's marks taken off: links to their text, images dropped, emphasis and code marks removed. */
function plainText(markdown: string): string {
  return oneLine(
    markdown
      .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1')
      .replace(/(\*\*|__|\*|_|`|~~)(?=\S)([^*_`~]*?\S)\1/g, '$2'),
    Number.POSITIVE_INFINITY,
  );
}

/** Whole sentences up to `max` characters; a first sentence longer than that cut at a word, with an ellipsis. */
function sentencesWithin(text: string, max: number): string {
  if (text.length <= max) return text;
  const window = text.slice(0, max);
  const end = Math.max(window.lastIndexOf('. '), window.lastIndexOf('! '), window.lastIndexOf('? '));
  if (end >= max / 3) return window.slice(0, end + 1);
  const space = window.lastIndexOf(' ');
  return `${window.slice(0, space > max / 2 ? space : max - 1).trimEnd()}…`;
}

/** One line, spaces collapsed, at most `max` characters (cut at a word). */
function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const space = line.lastIndexOf(' ', max - 1);
  return `${line.slice(0, space > max / 2 ? space : max - 1).trimEnd()}…`;
}

/** Heading text as markdown reads it back: a run of #s after a space would close the heading, so it is left off. */
function headingText(text: string): string {
  return text.replace(/(?:\s+#+)+\s*$/, '').trim();
}

/** Link text a line-shaped reader takes whole: square brackets (which would end it) become round ones. */
function linkText(text: string): string {
  return text.replace(/\[/g, '(').replace(/\]/g, ')');
}

/** The URL as a link target: parentheses and spaces percent-encoded (the same address) so the link ends where it should. */
function linkTarget(href: string): string {
  return href.replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/ /g, '%20').replace(/>/g, '%3E');
}

function words(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A malformed escape stays as written.
  }
  const spaced = oneLine(decoded.replace(/[-_+]+/g, ' '), 80);
  return spaced ? spaced[0]!.toUpperCase() + spaced.slice(1) : '';
}
