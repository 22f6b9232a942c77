import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { CrawlReference } from './crawl.messages';
import { SiteScopeOptions } from './site-map.messages';

/** An llms.txt is an index a reader takes in whole: a thousand links is already long. */
export const LLMS_TXT_LIMITS = { pages: { default: 100, max: 1_000 } } as const;

/**
 * POST /v1/llms-txt (issue 67, decision 0042): a crawl of the site whose pages' own titles and
 * descriptions make its llms.txt (GET /v1/llms-txt/{crawl_id}).
 */
export class LlmsTxtRequest extends SiteScopeOptions {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: LLMS_TXT_LIMITS.pages.max,
    default: LLMS_TXT_LIMITS.pages.default,
    description: 'The most pages crawled, and so listed (the start page gives the title and summary).',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(LLMS_TXT_LIMITS.pages.max)
  max_pages?: number;

  @ApiPropertyOptional({
    default: false,
    description: 'Render each page in a browser (5 credits a page instead of 1): for a site whose pages are written by JavaScript.',
  })
  @IsOptional()
  @IsBoolean()
  browser?: boolean;
}

/** One line of a generated llms.txt: `- [title](url): description`. */
export class LlmsTxtLine {
  @ApiProperty({ description: "The page's own title (the site's name taken off), else its first heading, else its path." })
  title: string;
  @ApiProperty()
  url: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The page's meta description, else its first paragraph's first sentences; null when neither says more than the title.",
  })
  description: string | null;
}

export class LlmsTxtPart {
  @ApiProperty({
    description: 'The H2: the pages\' first path segment ("Docs" for /docs/…), "Pages" for top-level pages, "Optional" for archives.',
  })
  name: string;
  @ApiProperty({ description: 'The "Optional" section (tag, category, author, page and archive paths): links a reader may skip.' })
  optional: boolean;
  @ApiProperty({ type: [LlmsTxtLine] })
  entries: LlmsTxtLine[];
}

/** An llms.txt made from a crawl's pages, or where the crawl stands while it runs. */
export class LlmsTxtView {
  @ApiProperty({ format: 'uuid' })
  crawl_id: string;
  @ApiProperty({ description: "The crawl's start URL." })
  url: string;
  @ApiProperty({
    enum: ['in_progress', 'completed'],
    description: 'in_progress while the crawl runs (llms_txt null: ask again); completed once it has ended and the file is made.',
  })
  status: 'in_progress' | 'completed';
  @ApiProperty({ description: "The crawl's state (GET /v1/crawl/{crawl_id})." })
  crawl_state: string;
  @ApiProperty({ type: 'integer', description: 'Pages the crawl has scraped so far.' })
  pages_scraped: number;
  @ApiProperty({ type: 'integer', description: 'Pages listed in the file (the start page gives its title and summary instead).' })
  pages_listed: number;
  @ApiProperty({ description: `More pages were scraped than one file lists (${LLMS_TXT_LIMITS.pages.max}): the first by URL are listed.` })
  truncated: boolean;
  @ApiProperty({ type: 'integer', description: "The crawl's credits (its pages, charged as a crawl's); making the file costs nothing." })
  credits_charged: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The H1: the part most page titles share, else the start page’s title, else the host.',
  })
  title: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The blockquote: the start page's description." })
  summary: string | null;
  @ApiProperty({ type: [LlmsTxtPart] })
  sections: LlmsTxtPart[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The file (llmstxt.org: H1, blockquote, H2 sections of links), once the crawl has ended; null before.',
  })
  llms_txt: string | null;
}

/** Make the llms.txt of one of the client's crawls (gateway → site-discovery). */
export class LlmsTxtQuery extends CrawlReference {}
