import { parse } from 'node-html-parser';
import TurndownService from 'turndown';
// turndown-plugin-gfm ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { gfm } = require('turndown-plugin-gfm') as { gfm: TurndownService.Plugin };
import { absoluteUrl, documentBaseUrl } from './absolute-urls';

/**
 * HTML → GitHub-flavoured markdown: ATX headings, fenced code blocks (language kept from
 * `language-*` classes), GFM tables and strikethrough, nested lists, and every link and image
 * made absolute against the page URL (or its <base href>), so the markdown stands on its own.
 */
export class MarkdownConverter {
  private readonly turndown: TurndownService;

  constructor() {
    this.turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', hr: '---' });
    this.turndown.use(gfm);
    this.turndown.remove(['script', 'style', 'noscript', 'template', 'iframe', 'head'] as never);
  }

  convert(html: string, pageUrl: string): string {
    const root = parse(html, { comment: false });
    const base = documentBaseUrl(root, pageUrl);
    for (const el of root.querySelectorAll('a[href]')) el.setAttribute('href', absoluteUrl(el.getAttribute('href') ?? '', base));
    for (const el of root.querySelectorAll('img[src]')) el.setAttribute('src', absoluteUrl(el.getAttribute('src') ?? '', base));
    const body = root.querySelector('body') ?? root;
    return this.turndown.turndown(body.toString()).trim();
  }
}
