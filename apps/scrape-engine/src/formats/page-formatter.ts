import { MAIN_CONTENT_FALLBACK_NOTE, type PageMetadata, type ScrapeRequest } from '@lib/contracts';
import { embeddedProseOf, SHELL_TEXT } from '@lib/page-evidence';
import { Injectable } from '@nestjs/common';
import { SelectorExtractor } from '../extraction/selector-extractor';
import { MarkdownConverter } from './markdown-converter';
import { escapeMarkdownText } from './markdown-rules';
import { pageKindOf } from './main-content-locator';
import { pageMetadataOf } from './page-metadata';
import { ParsedPage } from './parsed-page';

export interface FormattedPage {
  markdown: string | null;
  extracted: Record<string, unknown> | null;
  metadata: PageMetadata | null;
  /** What the client should know about the formats (a degraded conversion, no article found), for guidance.next_steps. */
  notes: string[];
}

/**
 * What a scrape makes of an HTML page once fetched or rendered, the same in simple and browser
 * mode: markdown (main content, images), `extract`, metadata — all from one parse of the page,
 * made only when one of them is asked for (format=html alone never parses).
 */
@Injectable()
export class PageFormatter {
  constructor(
    private readonly markdown: MarkdownConverter,
    private readonly extractor: SelectorExtractor,
  ) {}

  format(
    request: Pick<ScrapeRequest, 'format' | 'extract' | 'only_main_content' | 'include_images' | 'include_metadata'>,
    html: string,
    url: string,
    delivered: { scriptsRan: boolean },
  ): FormattedPage {
    const page = new ParsedPage(html, url, delivered);
    const extracted = request.extract ? this.extractor.extract(page, request.extract) : null;
    const metadata = request.include_metadata ? pageMetadataOf(page) : null;
    if (request.format !== 'markdown')
      return {
        markdown: null,
        extracted,
        metadata: metadata && { ...metadata, page_type: pageKindOf(page).kind, main_content: null },
        notes: [],
      };
    const converted = this.markdown.convert(page, {
      onlyMainContent: request.only_main_content ?? false,
      includeImages: request.include_images ?? true,
    });
    const notes: string[] = [];
    if (converted.degraded)
      notes.push(
        `The page could not be converted to markdown (${converted.degraded}); markdown holds its visible text. Request format=html for the page itself.`,
      );
    if (converted.noMainContent) notes.push(converted.noMainContent);
    else if (converted.fallbackReason) notes.push(converted.fallbackReason);
    else if (converted.mainContentFallback) notes.push(MAIN_CONTENT_FALLBACK_NOTE);
    if (metadata) {
      // The locator has classified the page when main content was asked for: not read twice.
      metadata.page_type = converted.pageKind ?? pageKindOf(page).kind;
      metadata.main_content = converted.mainContent ?? null;
    }
    const markdown =
      delivered.scriptsRan || converted.noMainContent ? converted.markdown : withBootDataText(converted.markdown, html, notes);
    return { markdown, extracted, metadata, notes };
  }
}

/** Most a markdown answer takes from a page's boot data. */
const BOOT_TEXT_MAX = 200_000;

/**
 * A page whose scripts did not run (simple mode) and whose markup reads as nearly nothing may keep
 * its text in framework boot data (__NEXT_DATA__, Discourse's data-preloaded…): that text, as
 * paragraphs after what the markup had, is worth more to a client than advice alone. The verdict
 * is unchanged (an empty shell stays one); a note says where the text came from. The data must hold
 * as much prose as the content validator asks of boot data before it calls it evidence (SHELL_TEXT).
 */
function withBootDataText(markdown: string, html: string, notes: string[]): string {
  const markupText = textOfMarkdown(markdown);
  if (markupText >= SHELL_TEXT) return markdown;
  const boot = embeddedProseOf(html, BOOT_TEXT_MAX);
  const bootText = boot.paragraphs.reduce((sum, p) => sum + p.length, 0);
  if (bootText < SHELL_TEXT || bootText < markupText * 2) return markdown;
  notes.push(
    `The page keeps its text in boot data for its scripts (${boot.sources.join(', ')}): markdown holds that text (${bootText} characters) as paragraphs in the data's order, read without a browser. For the page as rendered, retry with browser=true.`,
  );
  // Data text is text, not markdown: escaped as the converter escapes a page's text.
  const paragraphs = boot.paragraphs.map(escapeMarkdownText).join('\n\n');
  return markdown.trim() ? `${markdown.trimEnd()}\n\n${paragraphs}\n` : `${paragraphs}\n`;
}

/** Characters of text in markdown, without link targets, images and markup characters. */
function textOfMarkdown(markdown: string): number {
  return markdown
    .replace(/!\[[^\]\n]*\]\([^)\n]*\)|\]\([^)\n]*\)|[#*_>`|[\]-]/g, '')
    .replace(/\s+/g, ' ')
    .trim().length;
}

/** Guidance with the formats' notes added to its next steps. */
export function withFormatNotes<G extends { next_steps: string[] }>(guidance: G, notes: string[]): G {
  return notes.length === 0 ? guidance : { ...guidance, next_steps: [...guidance.next_steps, ...notes] };
}
