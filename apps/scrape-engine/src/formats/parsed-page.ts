import { HTMLElement, parse } from 'node-html-parser';
import { documentBaseUrl } from './absolute-urls';
import { alignRawText } from './raw-text-boundaries';

// <pre> is parsed as markup (its <code>, <b>, <br> are elements); script, style and noscript stay raw text.
export const PARSE_OPTIONS = { comment: false, blockTextElements: { script: true, noscript: true, style: true } };

/**
 * One HTML page parsed once, on first use, and shared by everything that reads it in one scrape
 * (selector extraction, markdown, metadata). Raw-text elements are first aligned with where a
 * browser ends them (see alignRawText), so the tree holds the page a browser would show.
 */
export class ParsedPage {
  private parsed: HTMLElement | null = null;
  private base: string | null = null;

  constructor(
    readonly html: string,
    readonly url: string,
  ) {}

  get root(): HTMLElement {
    return (this.parsed ??= parse(alignRawText(this.html), PARSE_OPTIONS));
  }

  /** The <body>, or the whole document when the page has none (a fragment). */
  get body(): HTMLElement {
    return this.root.querySelector('body') ?? this.root;
  }

  /** What the page's relative URLs resolve against: its <base href>, else its own URL. */
  get baseUrl(): string {
    return (this.base ??= documentBaseUrl(this.root, this.url));
  }
}
