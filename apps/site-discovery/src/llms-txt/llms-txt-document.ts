/**
 * A site's llms.txt (https://llmstxt.org, decision 0042): markdown with an H1 title, an optional
 * blockquote summary, free text, then H2 sections of links (`- [name](url): notes`); a section
 * named "Optional" holds links a reader may skip. Read line by line: the format is line-shaped, and
 * a file that is not one (an HTML page answered for every path) is told apart.
 */
export interface LlmsTxtLink {
  title: string;
  url: string;
  description: string | null;
}

export interface LlmsTxtDocument {
  title: string;
  summary: string | null;
  sections: Array<{ name: string; optional: boolean; links: LlmsTxtLink[] }>;
  /** Links in all, those past the limit included. */
  total: number;
}

/** The most links kept from one file. */
export const LLMS_TXT_LINK_LIMIT = 1000;

// An ATX heading's closing #s count only after a space (CommonMark): "# C#" is titled "C#".
const H1 = /^#\s+(.+?)(?:\s+#+)?\s*$/;
const H2 = /^##\s+(.+?)(?:\s+#+)?\s*$/;
const QUOTE = /^>\s?(.*)$/;
// "- [title](url)" or "* [title](url "a title"): notes" — the link first in its list item.
const LINK_ITEM = /^\s*[-*+]\s+\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)\s*(?::\s*(.*))?$/;

/** The file read, its links made absolute against `fileUrl`; null when it is not an llms.txt (no H1, or HTML). */
export function readLlmsTxt(text: string, fileUrl: string): LlmsTxtDocument | null {
  if (/^\s*<(?:!doctype|html|head|body)\b/i.test(text)) return null;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const first = lines.findIndex((line) => line.trim() !== '');
  const title = first >= 0 ? H1.exec(lines[first]!.trim())?.[1] : undefined;
  if (!title) return null;
  const document: LlmsTxtDocument = { title, summary: null, sections: [], total: 0 };
  const summary: string[] = [];
  let inSummary = true;
  let kept = 0;
  for (const line of lines.slice(first + 1)) {
    const trimmed = line.trim();
    const heading = H2.exec(trimmed);
    if (heading) {
      inSummary = false;
      document.sections.push({ name: heading[1]!, optional: heading[1]!.toLowerCase() === 'optional', links: [] });
      continue;
    }
    const quote = QUOTE.exec(trimmed);
    if (inSummary && quote) {
      summary.push(quote[1]!);
      continue;
    }
    if (trimmed !== '' && summary.length > 0) inSummary = false;
    const section = document.sections.at(-1);
    const item = section ? LINK_ITEM.exec(line) : null;
    if (!section || !item) continue;
    const url = absolute(item[2]!, fileUrl);
    if (!url) continue;
    document.total += 1;
    if (kept >= LLMS_TXT_LINK_LIMIT) continue;
    kept += 1;
    section.links.push({ title: item[1]!.trim(), url, description: item[3]?.trim() || null });
  }
  document.summary = summary.length > 0 ? summary.join(' ').trim() || null : null;
  return document;
}

function absolute(href: string, base: string): string | null {
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
