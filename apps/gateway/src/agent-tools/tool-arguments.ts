import {
  CONTENT_TOKENIZERS,
  CONTENT_WINDOW_MAX_TOKENS,
  CONTENT_WINDOW_MIN_TOKENS,
  CrawlRequest,
  DOCUMENT_MAX_PAGES,
  IsPageRanges,
  DEFAULT_VIABILITY_DEPTH,
  PAGE_CACHE_MAX_AGE_SECONDS,
  MapSiteRequest,
  MonitorCrawlScope,
  SyncScrapeRequest,
  toProblems,
  VIABILITY_DEPTHS,
  ViabilityDepth,
  type ValidationProblem,
} from '@lib/contracts';
import { IntersectionType, PickType } from '@nestjs/swagger';
import { plainToInstance, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  validate,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { capProblems, inputShapeProblems } from '../http-errors/input-shape';
import { MAX_CHARS_LIMIT, MIN_CHARS } from './text-window';

/** The scrape request's fields that make sense for an agent (the rest — headers, cookies, network capture, http_method — stay REST-only). */
export const AGENT_SCRAPE_FIELDS = [
  'url',
  'format',
  'browser',
  'browser_type',
  'extract',
  'actions',
  'screenshot',
  'use_proxy',
  'language',
  'window_size',
  'retry_on_block',
  'max_age',
  'pages',
  'max_pages',
  'ocr',
  'include_frames',
] as const;

/** A budget the texts of one answer share (crawl_status's pages, monitor_changes' diffs): characters or tokens. */
class SharedBudgetArguments {
  @IsOptional()
  @IsInt()
  @Min(MIN_CHARS)
  @Max(MAX_CHARS_LIMIT)
  max_chars?: number;

  @IsOptional()
  @IsInt()
  @Min(CONTENT_WINDOW_MIN_TOKENS)
  @Max(CONTENT_WINDOW_MAX_TOKENS)
  max_tokens?: number;

  @IsOptional()
  @IsIn(CONTENT_TOKENIZERS)
  tokenizer?: (typeof CONTENT_TOKENIZERS)[number];
}

/** How much of one content an answer holds: characters (max_chars, offset) or tokens (max_tokens, cursor; decision 0042). */
class ContentWindowArguments extends SharedBudgetArguments {
  @IsOptional()
  @IsInt()
  @Min(0)
  offset?: number;

  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

/** scrape_url: the agent's fields of a scrape request (validated by the scrape request's own rules) and the content window. */
export class ScrapeUrlArguments extends IntersectionType(PickType(SyncScrapeRequest, AGENT_SCRAPE_FIELDS), ContentWindowArguments) {}

export class ScrapeAsMarkdownArguments extends ContentWindowArguments {
  @IsString()
  @MinLength(1)
  @MaxLength(8192)
  url: string;

  @IsOptional()
  @IsBoolean()
  browser?: boolean;

  @IsOptional()
  @IsBoolean()
  retry_on_block?: boolean;

  @IsOptional()
  @IsBoolean()
  full_page?: boolean;

  @IsOptional()
  @IsBoolean()
  prefer_site_markdown?: boolean;

  @IsOptional()
  @IsBoolean()
  include_frames?: boolean;

  @IsOptional()
  @IsString()
  @IsPageRanges()
  pages?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(DOCUMENT_MAX_PAGES)
  max_pages?: number;

  @IsOptional()
  @IsBoolean()
  ocr?: boolean;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(PAGE_CACHE_MAX_AGE_SECONDS)
  max_age?: number;
}

export class DiscoverArguments {
  @IsString()
  @MaxLength(8192)
  @Matches(/^https?:\/\/[^\s/?#]+/i, { message: 'url must be an http or https URL.' })
  url: string;

  @IsOptional()
  @IsIn(VIABILITY_DEPTHS)
  depth?: ViabilityDepth;
}

/** The scope fields a map or crawl tool takes (the rest of the REST bodies stay REST-only). */
export const AGENT_SCOPE_FIELDS = ['url', 'include_subdomains', 'include_paths', 'exclude_paths', 'sitemap', 'max_depth'] as const;

/** map_site: the map's scope and limit, and the window over the URL list. */
export class MapSiteArguments extends IntersectionType(
  PickType(MapSiteRequest, [...AGENT_SCOPE_FIELDS, 'limit'] as const),
  ContentWindowArguments,
) {}

/** crawl_site: the crawl's scope and bounds, and how each page is read (markdown, main content by default). */
export class CrawlSiteArguments extends PickType(CrawlRequest, [...AGENT_SCOPE_FIELDS, 'max_pages', 'max_credits', 'dry_run'] as const) {
  @IsOptional()
  @IsBoolean()
  browser?: boolean;

  @IsOptional()
  @IsBoolean()
  full_page?: boolean;
}

/** Pages of a crawl shown per crawl_status call. */
export const CRAWL_STATUS_PAGES = { default: 3, max: 10 } as const;

/** crawl_status: the crawl, and a page of its scraped pages' content (cursor from the previous answer). */
export class CrawlStatusArguments extends SharedBudgetArguments {
  @IsUUID()
  crawl_id: string;

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  cursor?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(CRAWL_STATUS_PAGES.max)
  pages?: number;
}

/** The crawl a crawl_site call stands for: every page as markdown (its main content unless full_page), browser when asked. */
export function crawlRequestOf(args: CrawlSiteArguments): CrawlRequest {
  const scope = Object.fromEntries(
    [...AGENT_SCOPE_FIELDS, 'max_pages', 'max_credits', 'dry_run']
      .filter((k) => args[k as keyof CrawlSiteArguments] !== undefined)
      .map((k) => [k, args[k as keyof CrawlSiteArguments]]),
  );
  return plainToInstance(CrawlRequest, {
    ...scope,
    scrape: { format: 'markdown', only_main_content: args.full_page !== true, ...(args.browser ? { browser: true } : {}) },
  });
}

/** The map a map_site call stands for. */
export function mapRequestOf(args: MapSiteArguments): MapSiteRequest {
  const fields = Object.fromEntries(
    [...AGENT_SCOPE_FIELDS, 'limit']
      .filter((k) => args[k as keyof MapSiteArguments] !== undefined)
      .map((k) => [k, args[k as keyof MapSiteArguments]]),
  );
  return plainToInstance(MapSiteRequest, fields);
}

/** Tools without arguments still refuse unknown ones: a misspelt argument is an error, never ignored. */
export class CreateMonitorArguments {
  @ValidateIf((args: CreateMonitorArguments) => args.crawl === undefined || args.urls !== undefined)
  @IsArray({ message: 'urls must be an array (or give crawl instead).' })
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MaxLength(8192, { each: true })
  @Matches(/^https?:\/\/[^\s/?#]+/i, { each: true, message: 'each of urls must be an http or https URL.' })
  urls?: string[];

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MonitorCrawlScope)
  crawl?: MonitorCrawlScope;

  @IsInt()
  @Min(60)
  interval_seconds: number;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @IsOptional()
  @IsBoolean()
  browser?: boolean;

  @IsOptional()
  @IsObject()
  extract?: Record<string, string>;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  ignore_selectors?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  ignore_patterns?: string[];
}

export class MonitorChangesArguments extends SharedBudgetArguments {
  @IsUUID()
  monitor_id: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;
}

export class NoArguments {}

export type ToolArguments<T> = { ok: true; value: T } | { ok: false; problems: ValidationProblem[] };

/**
 * Validates a tool call's arguments into their class with the same bounds and rules as a REST
 * body (input shape, class-validator, unknown fields refused), reporting every problem at once
 * with its location (`["arguments", "actions", 0, "selector"]`).
 */
export async function argumentsOf<T extends object>(type: new () => T, raw: unknown): Promise<ToolArguments<T>> {
  const value = raw ?? {};
  if (typeof value !== 'object' || Array.isArray(value))
    return { ok: false, problems: [{ loc: ['arguments'], msg: 'The arguments must be a JSON object.', type: 'dict_type' }] };
  const shape = inputShapeProblems(value, ['arguments']);
  if (shape.length > 0) return { ok: false, problems: shape };
  const instance = plainToInstance(type, value);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false });
  if (errors.length > 0) return { ok: false, problems: capProblems(toProblems(errors, ['arguments']), ['arguments']) };
  return { ok: true, value: instance };
}

/** The scrape request a scrape_url call stands for: the spec's defaults for everything the agent left out. */
export function scrapeRequestOf(args: ScrapeUrlArguments): SyncScrapeRequest {
  const fields = Object.fromEntries(AGENT_SCRAPE_FIELDS.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
  return plainToInstance(SyncScrapeRequest, fields);
}

/** scrape_as_markdown: the main article as markdown (or the whole page), with its title and final URL. */
export function markdownRequestOf(args: ScrapeAsMarkdownArguments): SyncScrapeRequest {
  return plainToInstance(SyncScrapeRequest, {
    max_age: args.max_age,
    url: args.url,
    pages: args.pages,
    max_pages: args.max_pages,
    ocr: args.ocr,
    format: 'markdown',
    only_main_content: args.full_page !== true,
    prefer_site_markdown: args.prefer_site_markdown,
    include_frames: args.include_frames,
    include_metadata: true,
    browser: args.browser ?? false,
    retry_on_block: args.retry_on_block ?? false,
  });
}

export function depthOf(args: DiscoverArguments): ViabilityDepth {
  return args.depth ?? DEFAULT_VIABILITY_DEPTH;
}

/** The fields of a suggested scrape request a scrape tool takes, as that tool's arguments. */
export function agentScrapeArguments(suggested: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    AGENT_SCRAPE_FIELDS.filter((field) => suggested[field] !== undefined).map((field) => [field, suggested[field]]),
  );
}
