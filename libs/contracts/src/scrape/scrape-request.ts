import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  ACTION_LIMITS,
  ACTION_TYPES,
  actionDiscriminator,
  actionSchema,
  BrowserAction,
  UnknownAction,
  WithinActionLimits,
} from './browser-actions';
import {
  IsBrowserActionList,
  IsExtractionMap,
  IsPageRanges,
  IsProxySelection,
  IsStringMap,
  NotWithBrowser,
  PayloadNeedsPost,
  RequiresBrowser,
} from './scrape-request-rules';
import { PAGE_CACHE_MAX_AGE_SECONDS } from './page-cache-terms';
import { UrlRequired } from '../target-url-rules';
import { DOCUMENT_MAX_PAGES } from '../documents/document-terms';

export const FORMATS = ['html', 'markdown'] as const;
export const BROWSER_TYPES = ['heavy', 'light'] as const;
export const WINDOW_SIZES = ['desktop', 'mobile', 'any'] as const;
export const RESOURCE_TYPES = [
  'document',
  'eventsource',
  'fetch',
  'font',
  'image',
  'manifest',
  'media',
  'other',
  'script',
  'stylesheet',
  'texttrack',
  'websocket',
  'xhr',
] as const;

/** Spec 2.2. */
export class ProxyConfig {
  @ApiPropertyOptional({ default: 'any', description: '"any" or a two-letter ISO country code (needs approval).' })
  @IsOptional()
  @IsString()
  @Matches(/^(any|[A-Za-z]{2})$/, { message: 'proxy must be "any" or a two-letter ISO country code' })
  proxy: string = 'any';

  @ApiPropertyOptional({ type: 'integer', default: 3, minimum: 0, maximum: 10 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  max_retries: number = 3;

  @ApiPropertyOptional({ type: 'integer', default: 1, minimum: 0, maximum: 60 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(60)
  delay_seconds: number = 1;

  @ApiPropertyOptional({ type: 'integer', default: 2, minimum: 1, maximum: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10)
  backoff_factor: number = 2;
}

/** Spec 2.5. */
export class HttpMethodSpec {
  @ApiPropertyOptional({ enum: ['get', 'post'], default: 'get' })
  @IsOptional()
  @IsIn(['get', 'post'])
  method: 'get' | 'post' = 'get';

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, description: 'POST body (post only).' })
  @IsOptional()
  @IsObject()
  @PayloadNeedsPost()
  payload: Record<string, unknown> | null = null;

  @ApiPropertyOptional({ enum: ['json', 'form'], default: 'json' })
  @IsOptional()
  @IsIn(['json', 'form'])
  content_type: 'json' | 'form' = 'json';
}

/** Spec 2.6. */
export class NetworkCaptureSpec {
  @ApiPropertyOptional({ enum: RESOURCE_TYPES, isArray: true, nullable: true, description: 'null captures every type.' })
  @IsOptional()
  @IsArray()
  @IsIn(RESOURCE_TYPES, { each: true })
  resource_types: string[] | null = null;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 10000, nullable: true })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10000)
  listen_after_load_ms: number | null = null;
}

/**
 * The scrape request of spec 2.1 — the sync scrape body and the item type of a collection's
 * `requests`. Defaults are the spec's; the rules of spec 4.2 are validators on the fields they
 * concern, so a violation is reported at that field.
 */
export class ScrapeRequest {
  @ApiProperty({
    example: 'https://example.com/',
    description: 'http or https; text that is no such URL is refused (422 invalid_url), so are non-public targets (422 target_blocked).',
  })
  @UrlRequired()
  @IsString()
  @MaxLength(8192)
  url: string;

  @ApiPropertyOptional({ enum: FORMATS, default: 'html' })
  @IsOptional()
  @IsIn(FORMATS)
  format: (typeof FORMATS)[number] = 'html';

  @ApiPropertyOptional({
    default: false,
    description:
      'Beyond the spec. With format=markdown: only the main article (as a reader view finds it: navigation, headers, footers, cookie banners, sidebars, ads and comments dropped), headed by its title. ' +
      'A page with no article is converted whole. html stays the page as served.',
  })
  @IsOptional()
  @IsBoolean()
  only_main_content: boolean = false;

  @ApiPropertyOptional({
    default: true,
    description:
      'Beyond the spec. With format=markdown: images as ![alt](absolute-url), or left out when false. Inline data: images are never copied (their alt text stands in).',
  })
  @IsOptional()
  @IsBoolean()
  include_images: boolean = true;

  @ApiPropertyOptional({
    default: false,
    description:
      'Beyond the spec. Fill `metadata`: title, description, language, canonical URL, final URL (after redirects) and the links of the page (either format).',
  })
  @IsOptional()
  @IsBoolean()
  include_metadata: boolean = false;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  browser: boolean = false;

  @ApiPropertyOptional({ enum: BROWSER_TYPES, default: 'heavy' })
  @IsOptional()
  @IsIn(BROWSER_TYPES)
  browser_type: (typeof BROWSER_TYPES)[number] = 'heavy';

  @ApiPropertyOptional({ oneOf: [{ type: 'string', example: 'any' }, { $ref: '#/components/schemas/ProxyConfig' }], nullable: true })
  @IsOptional()
  @IsProxySelection()
  @Type(() => ProxyConfig)
  use_proxy: string | ProxyConfig | null = null;

  @ApiPropertyOptional({ default: false, description: 'Full-page PNG, base64. Requires browser=true.' })
  @IsOptional()
  @IsBoolean()
  @RequiresBrowser()
  screenshot: boolean = false;

  @ApiPropertyOptional({
    type: 'array',
    items: actionSchema(),
    nullable: true,
    description:
      'Browser actions (spec 2.3), run in order after the page loads; requires browser=true. The spec leaves two types open; ours: ' +
      '`{"type":"select","selector":"css:…","value":"<option value>"}` chooses an option of a <select>; ' +
      '`{"type":"while","condition":{"selector":"css:…","state":"exists|visible|enabled"} or {"script":"<JS expression>"},"actions":[…],"max_iterations":10}` ' +
      'repeats its actions while the condition holds (max_iterations 1-100, default 10; while nests up to 3 deep). ' +
      `At most ${ACTION_LIMITS.maxDeclared} declared and ${ACTION_LIMITS.maxExecuted} executed actions, ${ACTION_LIMITS.totalBudgetMs / 1000} s in all. ` +
      'A failing action stops the list: the response keeps the page as it was, action_error names the action (its index path) and why, and guidance.error_type is action_failed. ' +
      'evaluate results go to evaluate_results, one entry per executed evaluate: {action, value, error}.',
  })
  @IsOptional()
  @IsBrowserActionList(ACTION_TYPES)
  @WithinActionLimits()
  @RequiresBrowser()
  @ValidateNested({ each: true })
  @Type(() => UnknownAction, actionDiscriminator())
  actions: BrowserAction[] | null = null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Output name → selector (css:, xpath:, or a bare //…) or {selector, multiple, attribute}.',
  })
  @IsOptional()
  @IsExtractionMap()
  extract: Record<string, string | { selector: string; multiple?: boolean; attribute?: string }> | null = null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, nullable: true })
  @IsOptional()
  @IsStringMap({ maxEntries: 100, maxValueLength: 8192 })
  headers: Record<string, string> | null = null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, nullable: true })
  @IsOptional()
  @IsStringMap({ maxEntries: 200, maxValueLength: 4096 })
  cookies: Record<string, string> | null = null;

  @ApiPropertyOptional({ example: 'en-US', default: '' })
  @IsOptional()
  @IsString()
  @Matches(/^$|^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, { message: 'language must be a language tag such as en-US' })
  language: string = '';

  @ApiPropertyOptional({ enum: WINDOW_SIZES, default: 'desktop' })
  @IsOptional()
  @IsIn(WINDOW_SIZES)
  window_size: (typeof WINDOW_SIZES)[number] = 'desktop';

  @ApiPropertyOptional({ type: HttpMethodSpec, nullable: true, description: 'Cannot be combined with browser=true.' })
  @IsOptional()
  @NotWithBrowser()
  @ValidateNested()
  @Type(() => HttpMethodSpec)
  http_method: HttpMethodSpec | null = null;

  @ApiPropertyOptional({ type: NetworkCaptureSpec, nullable: true, description: 'Requires browser=true.' })
  @IsOptional()
  @RequiresBrowser()
  @ValidateNested()
  @Type(() => NetworkCaptureSpec)
  network_capture: NetworkCaptureSpec | null = null;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  retry_on_block: boolean = false;

  @ApiPropertyOptional({
    default: false,
    description:
      'Beyond the spec (decision 0042). With format markdown: the site\'s own markdown when it publishes one — asked for with Accept: text/markdown, or found through a <link rel="alternate" type="text/markdown"> or Link header — checked to be markdown (a page that answers HTML under a markdown type is caught) and used instead of extracting; otherwise the page is extracted as usual. `markdown_source` says which. With browser=true (and no actions, screenshot, network_capture or include_frames) one plain request asks first: when the site offers its markdown no browser is started and the scrape is charged as a simple one.',
  })
  @IsOptional()
  @IsBoolean()
  prefer_site_markdown?: boolean;

  @ApiPropertyOptional({
    default: false,
    description:
      "Beyond the spec (decision 0042). Browser mode reads a page's same-origin frames into its content always; with include_frames, also its frames from other origins (at most 5, as the browser rendered them — every request of theirs passed the same SSRF guard), each in place of its <iframe>, 1 credit each frame read. Without it they are listed in the guidance notes. Requires browser=true.",
  })
  @IsOptional()
  @IsBoolean()
  @RequiresBrowser()
  include_frames?: boolean;

  @ApiPropertyOptional({
    type: 'string',
    example: '1-3,7,10-',
    description:
      'Beyond the spec. When the URL serves a document (PDF, DOCX, XLSX, PPTX, CSV…): the pages to read, counted from 1 — "3", "3-10", "12-" (to the end), comma-separated (at most 100 ranges). For a spreadsheet a page is a sheet, for slides a slide. Absent: every page, up to max_pages. No effect on HTML.',
  })
  @IsOptional()
  @IsString()
  @IsPageRanges()
  pages?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: DOCUMENT_MAX_PAGES,
    default: DOCUMENT_MAX_PAGES,
    description:
      "Beyond the spec. When the URL serves a document: the most pages read (after `pages`); the rest are left out and said so in the notes. A document costs one credit per page read (a simple request's credit covers the first), so this bounds the cost.",
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(DOCUMENT_MAX_PAGES)
  max_pages?: number;

  @ApiPropertyOptional({
    default: false,
    description:
      "Beyond the spec. When the URL serves a PDF whose pages are pictures (a scan): read their text by OCR (English), 2 credits a page recognised, within the document's 20 s budget (2–5 s a page: about 4 dense pages a call; ask for the rest with `pages`). Without it a scan says `metadata.document.ocr_required`. Pages with a text layer are read as always.",
  })
  @IsOptional()
  @IsBoolean()
  ocr?: boolean;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  custom_id?: string;
}

/**
 * POST /v1/sync/scrape's body, and a collection's, a batch's or a crawl's page request: a scrape
 * request (spec 2.1) and, beyond the spec, the page cache's two fields (decision 0037). A batch job
 * asks the cache as the sync scrape does (scrape-engine's JobPageCache). Monitors do not take them:
 * a monitor compares what it fetched, never what it stored.
 */
export class SyncScrapeRequest extends ScrapeRequest {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: PAGE_CACHE_MAX_AGE_SECONDS,
    description:
      'Beyond the spec. Seconds: a result of the same request (same URL after normalisation and every option that changes the result) stored at most this long ago is returned from the page cache, with cached=true, for 0 credits. ' +
      'Older, and the origin gave an ETag or Last-Modified: it is asked with a conditional GET (never a browser); a 304 returns the stored result for 1 credit in either mode. Otherwise the page is fetched and charged as usual, and kept for the next request (never a failed or blocked result). 0: always fetch, and keep the result. Absent: the cache is not used. Per client; at most 30 days.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(PAGE_CACHE_MAX_AGE_SECONDS)
  max_age?: number;

  @ApiPropertyOptional({
    default: true,
    description:
      'Beyond the spec. With max_age: whether a stale entry is revalidated with the origin (ETag/Last-Modified) before fetching. The validators speak for the document only; for a page whose content its scripts load after the document, pass false.',
  })
  @IsOptional()
  @IsBoolean()
  revalidate?: boolean;
}

/** The page cache's own fields of a sync scrape: what the engine's ScrapeRequest does not take. */
export const PAGE_CACHE_FIELDS = ['max_age', 'revalidate'] as const;

/** The tokenizers a content window is counted with (decision 0042). */
export const CONTENT_TOKENIZERS = ['o200k_base', 'cl100k_base'] as const;
export const CONTENT_WINDOW_MIN_TOKENS = 16;
export const CONTENT_WINDOW_MAX_TOKENS = 1_000_000;

/**
 * POST /v1/sync/scrape's body (and GET /v1/read's query): a sync scrape with, beyond the spec, a
 * token budget for the content (decision 0042). The gateway cuts the answer; the engine never sees these fields.
 */
export class WindowedScrapeRequest extends SyncScrapeRequest {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: CONTENT_WINDOW_MIN_TOKENS,
    maximum: CONTENT_WINDOW_MAX_TOKENS,
    description:
      'Beyond the spec. A token budget for the content (markdown, or html): the answer holds as many whole blocks as fit, counted with `tokenizer`, and `content_window` says how many tokens the window and the whole hold and gives the `cursor` for the next window. ' +
      'A page with nothing to read answers content null and content_window.error (empty_content, unsupported_content_type, blocked).',
  })
  @IsOptional()
  @IsInt()
  @Min(CONTENT_WINDOW_MIN_TOKENS)
  @Max(CONTENT_WINDOW_MAX_TOKENS)
  max_tokens?: number;

  @ApiPropertyOptional({
    maxLength: 512,
    description:
      'Beyond the spec. With max_tokens: the `content_window.cursor` of the window before, to read the next one (the same request otherwise; with max_age the page cache serves the same page for 0 credits).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;

  @ApiPropertyOptional({
    enum: CONTENT_TOKENIZERS,
    default: 'o200k_base',
    description:
      'Beyond the spec. With max_tokens: the tokenizer that counts (o200k_base: GPT-4o and later; cl100k_base: GPT-4, GPT-3.5 and most embedding models).',
  })
  @IsOptional()
  @IsIn(CONTENT_TOKENIZERS)
  tokenizer?: (typeof CONTENT_TOKENIZERS)[number];
}

/** The content window's own fields: what the engine's ScrapeRequest does not take. */
export const CONTENT_WINDOW_FIELDS = ['max_tokens', 'cursor', 'tokenizer'] as const;
