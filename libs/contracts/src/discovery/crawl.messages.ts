import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import type { DuplicateOf } from '../scrape/scrape-execution.messages';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { openObject } from '../response-schema';
import { LlmsTxtReport, SiteScopeOptions } from './site-map.messages';

/** A crawl's bounds (issue 39): pages scraped, link depth, credits. */
export const CRAWL_LIMITS = {
  pages: { default: 100, max: 10_000 },
  depth: { default: 3, max: 20 },
  /** Jobs appended to the crawl's run per write. */
  appendChunk: 200,
  /** Further start pages besides `url`. */
  startUrls: 100,
  /**
   * A dry run: sections shown, sections sampled, URLs analysed per sampled section at quick depth
   * (≤ 2 credits each: the plan's worst case, refused up front when the month cannot cover it).
   */
  plan: { sectionsShown: 10, sectionsSampled: 5, samplesPerSection: 3, worstCaseCredits: 5 * 3 * 2 },
} as const;

/** The lifecycle of a crawl: its run's state on the job engine (decision 0014's table); a dry run is planning, then planned. */
export const CRAWL_STATES = ['running', 'paused', 'cancelling', 'completed', 'cancelled', 'planning', 'planned'] as const;
export type CrawlState = (typeof CRAWL_STATES)[number];
export const CRAWL_ACTIONS = ['pause', 'resume', 'cancel'] as const;
export type CrawlAction = (typeof CRAWL_ACTIONS)[number];

/** Why a crawl that ended scraped no page (never a bare success). */
export const ZERO_PAGE_REASONS = ['robots', 'scope', 'nothing_found', 'blocked', 'failed', 'cancelled'] as const;
export type ZeroPageReason = (typeof ZERO_PAGE_REASONS)[number];

/** POST /v1/crawl: the site's pages scraped as a run, each once, within max_pages, max_depth and max_credits. */
export class CrawlRequest extends SiteScopeOptions {
  @ApiPropertyOptional({
    type: [String],
    maxItems: CRAWL_LIMITS.startUrls,
    example: ['https://example.com/blog/', 'https://example.com/docs/'],
    description: `More pages to start from besides url (at most ${CRAWL_LIMITS.startUrls}), in scope and allowed like any link; the scope's hosts are url's.`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(CRAWL_LIMITS.startUrls)
  @IsString({ each: true })
  @MaxLength(8192, { each: true })
  @Matches(/^https?:\/\/[^\s/?#]+/i, { each: true, message: 'each of start_urls must be an http or https URL.' })
  start_urls?: string[];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: CRAWL_LIMITS.pages.max,
    default: CRAWL_LIMITS.pages.default,
    description: 'The most pages scraped.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CRAWL_LIMITS.pages.max)
  max_pages?: number;

  @ApiPropertyOptional({
    minimum: 1,
    nullable: true,
    type: 'integer',
    description:
      'The most credits the crawl may spend (pages × 1 simple, × 5 browser); pages past it are not scraped. Null: max_pages decides.',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  max_credits?: number | null;

  @ApiPropertyOptional({
    ...openObject(
      'The scrape options of spec 2.1 applied to every page (any ScrapeRequest field but url); include_metadata is always on: the links are read from it.',
    ),
    example: { format: 'markdown', only_main_content: true },
  })
  @IsOptional()
  @IsObject()
  scrape?: Record<string, unknown>;

  @ApiPropertyOptional({
    default: false,
    description:
      'Plan instead of crawl: discover the URLs without scraping them, analyse a few per path section (the viability analysis at quick depth, charged like it: at most 2 credits a URL, 30 in all), and forecast the credits and time per mode. The crawl answers planning, then planned with `plan`.',
  })
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: 'POSTed the crawl.completed webhook (signed like a run’s) once, when the crawl ends.',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(2048)
  @Matches(/^https?:\/\//i, { message: 'callback_url must be an http or https URL.' })
  callback_url?: string | null;

  @ApiPropertyOptional({
    default: false,
    description:
      'Also POST callback_url a `crawl.page` webhook (signed like every webhook) when each page that ran ends, completed or failed: one per page, with a stable X-Service-Delivery-Id, retried like the completion webhook. Needs callback_url.',
  })
  @IsOptional()
  @IsBoolean()
  page_webhooks?: boolean;
}

/** Start a crawl (or plan one: request.dry_run) for one client (gateway → site-discovery). */
export class CreateCrawlCommand {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsBoolean()
  robots_override_allowed: boolean;

  /** The client's plan's concurrent jobs (the crawl's run is capped there like a batch). */
  @IsInt()
  @Min(1)
  max_concurrency: number;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  monthly_credits: number | null;

  @ValidateNested()
  @Type(() => CrawlRequest)
  request: CrawlRequest;

  /**
   * The crawl's id (and its run's), given when the crawl is a crawl-scope monitor's tick: a create
   * repeated with an id already stored answers that crawl and changes nothing.
   */
  @IsOptional()
  @IsUUID()
  crawl_id?: string;
}

export class CrawlReference {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsUUID()
  crawl_id: string;
}

export class CrawlTransitionCommand extends CrawlReference {
  @IsIn(CRAWL_ACTIONS)
  action: CrawlAction;
}

export class CrawlSkipCounts {
  @ApiProperty({ description: 'Disallowed by robots.txt (never fetched).' })
  robots: number;
  @ApiProperty({ description: 'Outside the hosts or path patterns in scope.' })
  scope: number;
  @ApiProperty({ description: 'Dropped by a trap rule.' })
  trap: number;
  @ApiProperty({ description: 'Links found on pages at max_depth (not followed).' })
  depth: number;
  @ApiProperty({ description: 'In scope but past max_pages or max_credits.' })
  over_limit: number;
  @ApiProperty({
    description:
      'Pages whose redirect target or rel=canonical is another page of the crawl: fetched once (the only way to learn it), their links not followed.',
  })
  duplicate: number;
}

/** One path section of a plan: its URLs and what the sampled ones need. */
export class CrawlPlanSection {
  @ApiProperty({ example: '/blog', description: "The URLs' first path segment ('/' for the root's own pages)." })
  path: string;

  @ApiProperty()
  urls: number;

  @ApiProperty({ type: [String], description: 'The URLs analysed (quick depth).' })
  sampled: string[];

  @ApiProperty({
    ...openObject('Sampled URLs per recommended_strategy (extract_html, browser, api, blocked).'),
    example: { extract_html: 3 },
  })
  strategies: Record<string, number>;
}

export class CrawlForecast {
  @ApiProperty({ enum: ['simple', 'browser'] })
  mode: 'simple' | 'browser';

  @ApiProperty({ description: 'Pages the crawl would scrape: the URLs found, within max_pages and max_credits at this mode’s price.' })
  pages: number;

  @ApiProperty()
  credits: number;

  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description:
      'Seconds, from the sampled pages’ own fetch times, the politeness in flight and Crawl-delay; null where the samples measured nothing for this mode.',
  })
  seconds: number | null;
}

/** A dry run's answer (issue 39): the bill and the block rate before anything is scraped. */
export class CrawlPlan {
  @ApiProperty({ description: 'URLs found in scope (sitemaps and links to max_depth, as POST /v1/map finds them).' })
  discovered: number;

  @ApiProperty({
    description:
      'Of those, how many are expected to be another page (a redirect, a copy whose rel=canonical names another URL), from a sample of up to 50 of the URLs listed but not fetched: the crawl fetches them without charging, and the forecast counts the rest.',
  })
  duplicates_expected: number;

  @ApiProperty()
  truncated: boolean;

  @ApiProperty({ type: [CrawlPlanSection], description: 'The 10 largest sections (the rest counted under "other").' })
  sections: CrawlPlanSection[];

  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: 'Sampled URLs that were blocked ÷ sampled URLs; null when none could be sampled.',
  })
  block_rate: number | null;

  @ApiPropertyOptional({ enum: ['simple', 'browser'], nullable: true, type: String, description: 'What most sampled pages need.' })
  recommended_mode: 'simple' | 'browser' | null;

  @ApiProperty({ type: [CrawlForecast] })
  forecast: CrawlForecast[];

  @ApiProperty({ description: 'Credits the sample analyses were charged (the ledger’s).' })
  credits_charged: number;
}

/** GET /v1/crawl/{id}: where a crawl stands. */
export class CrawlView {
  @ApiProperty({ format: 'uuid', description: 'Also the id of its run: its pages are GET /v1/jobs?batch_id=<crawl_id>.' })
  crawl_id: string;

  @ApiProperty()
  url: string;

  @ApiProperty({ enum: CRAWL_STATES })
  state: CrawlState;

  @ApiProperty({ enum: ['in_progress', 'completed'] })
  status: 'in_progress' | 'completed';

  @ApiProperty({ description: 'Distinct in-scope URLs found and admitted (each becomes one page job).' })
  discovered: number;

  @ApiProperty({ description: 'Page jobs not finished yet.' })
  queued: number;

  @ApiProperty({ description: 'Pages scraped with usable content.' })
  completed: number;

  @ApiProperty({ description: 'Pages that failed, timed out or were cancelled.' })
  failed: number;

  @ApiProperty({ type: CrawlSkipCounts })
  skipped: CrawlSkipCounts;

  @ApiProperty()
  credits_charged: number;

  @ApiProperty()
  max_pages: number;

  @ApiPropertyOptional({ nullable: true, type: Number })
  max_credits: number | null;

  @ApiProperty({ enum: ['found', 'none', 'unavailable', 'ignored'] })
  robots: 'found' | 'none' | 'unavailable' | 'ignored';

  @ApiPropertyOptional({
    enum: ZERO_PAGE_REASONS,
    nullable: true,
    type: String,
    description:
      'Set when the crawl ended with no page scraped: robots (disallowed or robots.txt unavailable), scope (no page in scope: patterns or trap rules), nothing_found (sitemap=only and the sitemaps listed nothing), blocked (the site refused), failed, cancelled.',
  })
  zero_pages_reason: ZeroPageReason | null;

  @ApiPropertyOptional({
    example: '/v1/jobs?batch_id=…',
    nullable: true,
    type: String,
    description: 'Where its pages are listed; null for a dry run (nothing is scraped).',
  })
  results_path: string | null;

  @ApiPropertyOptional({ type: CrawlPlan, nullable: true, description: 'A dry run’s plan once made (state planned); null otherwise.' })
  plan: CrawlPlan | null;

  @ApiProperty({
    type: LlmsTxtReport,
    nullable: true,
    description:
      "The site's /llms.txt as read when the crawl started (a dry run: when its plan was made), as POST /v1/map lists it: its links by section, each in the crawl's scope or not. Listed only: the crawl's pages are what its start, sitemaps and links reach. Null while a plan is being made.",
  })
  llms_txt: LlmsTxtReport | null;

  @ApiProperty({ description: 'Unix seconds.' })
  created_at: number;

  @ApiPropertyOptional({ nullable: true, type: Number })
  completed_at: number | null;
}

// ---- site-discovery ↔ batch-orchestrator: the crawl's run on the job engine ----------------------

/** Open the crawl's run (kind crawl, running, no jobs yet); idempotent on run_id. */
export class OpenCrawlRunCommand {
  @IsUUID()
  run_id: string;

  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsString()
  @MaxLength(2048)
  name: string;

  @IsInt()
  @Min(1)
  max_concurrency: number;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  monthly_credits: number | null;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  callback_url: string | null;

  /** A `crawl.page` webhook to callback_url per page that ends. */
  @IsBoolean()
  page_webhooks: boolean;
}

/**
 * What a crawl asks of its page's job beyond the scrape, kept in the job's stored request under this
 * key: the orchestrator takes it out at claim and hands it to the worker beside the request (which
 * scrape-engine validates as a client's, so it carries nothing else).
 */
export const CRAWL_PAGE_DIRECTIVES = 'crawl_page';

export interface CrawlPageDirectives {
  /**
   * Fetch without following redirects and tell a page that is another one (a redirect, a
   * rel=canonical naming another URL of its host): the job then ends `cancelled`, uncharged, with
   * `duplicate_of`. False for a page discovery decided stands on its own (its canonical is a page
   * the crawl may not scrape).
   */
  twins: boolean;
}

export class CrawlPageJob {
  /** Chosen by site-discovery (one per normalised URL), so appending again after a crash adds nothing. */
  @IsUUID()
  job_id: string;

  @IsString()
  @MaxLength(8192)
  url: string;

  @IsObject()
  request: Record<string, unknown>;
}

/** Add pages to the crawl's run; a job id already there is skipped (idempotent). */
export class AppendCrawlPagesCommand {
  @IsUUID()
  run_id: string;

  @IsArray()
  @ArrayMaxSize(CRAWL_LIMITS.appendChunk)
  @ValidateNested({ each: true })
  @Type(() => CrawlPageJob)
  jobs: CrawlPageJob[];
}

/** Which of these jobs have finished, and how. */
export class CrawlPageOutcomesQuery {
  @IsUUID()
  run_id: string;

  @IsArray()
  @ArrayMaxSize(1_000)
  @IsUUID('all', { each: true })
  job_ids: string[];
}

export interface CrawlPageOutcome {
  job_id: string;
  status: string;
  success: boolean;
  /** The page it turned out to be (the job ended `cancelled`, uncharged), else null. */
  duplicate_of: DuplicateOf | null;
}

export class CrawlRunReference {
  @IsUUID()
  run_id: string;
}

export class CrawlRunTransitionCommand extends CrawlRunReference {
  @IsIn(CRAWL_ACTIONS)
  action: CrawlAction;
}

/** The run's side of a crawl: its lifecycle and counters. */
export interface CrawlRunFigures {
  run_id: string;
  state: CrawlState;
  status: 'in_progress' | 'completed';
  total: number;
  success: number;
  failed: number;
  timeout: number;
  cancelled: number;
  credits_charged: number;
  completed_at: number | null;
}
