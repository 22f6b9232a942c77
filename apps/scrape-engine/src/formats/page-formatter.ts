import { MAIN_CONTENT_FALLBACK_NOTE, type PageMetadata, type ScrapeRequest } from '@lib/contracts';
import { Injectable } from '@nestjs/common';
import { SelectorExtractor } from '../extraction/selector-extractor';
import { MarkdownConverter } from './markdown-converter';
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
    if (request.format !== 'markdown') return { markdown: null, extracted, metadata, notes: [] };
    const converted = this.markdown.convert(page, {
      onlyMainContent: request.only_main_content ?? false,
      includeImages: request.include_images ?? true,
    });
    const notes: string[] = [];
    if (converted.degraded)
      notes.push(
        `The page could not be converted to markdown (${converted.degraded}); markdown holds its visible text. Request format=html for the page itself.`,
      );
    if (converted.mainContentFallback) notes.push(MAIN_CONTENT_FALLBACK_NOTE);
    return { markdown: converted.markdown, extracted, metadata, notes };
  }
}

/** Guidance with the formats' notes added to its next steps. */
export function withFormatNotes<G extends { next_steps: string[] }>(guidance: G, notes: string[]): G {
  return notes.length === 0 ? guidance : { ...guidance, next_steps: [...guidance.next_steps, ...notes] };
}
