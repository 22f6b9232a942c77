import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
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
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
  registerDecorator,
} from 'class-validator';
import { CrawlRequest } from '../discovery/crawl.messages';
import { openObject } from '../response-schema';
import { IsExtractionMap } from '../scrape/scrape-request-rules';
import { CHANGE_STATUSES, type ChangeStatus } from './page-change';

export const MONITOR_STATES = ['active', 'paused'] as const;
export type MonitorState = (typeof MONITOR_STATES)[number];
export const MONITOR_ACTIONS = ['pause', 'resume'] as const;
export type MonitorAction = (typeof MONITOR_ACTIONS)[number];

/** Bounds of one monitor that no plan lifts (plans set how many monitors, URLs and how often: PlanLimits.monitors). */
export const MONITOR_LIMITS = {
  ignoreRules: 50,
  ruleLength: 500,
  /** A unified diff longer than this is cut (the rest is one GET of the page's two versions away). */
  diffChars: 100_000,
} as const;

/**
 * The key under which a monitor's page job carries its directives in its stored request; the
 * orchestrator takes them out at claim (the request stays a client's ScrapeRequest) and hands them
 * to the worker, as a crawl's page job carries `crawl_page`.
 */
export const MONITOR_PAGE_DIRECTIVES = 'monitor_page';

/** What a worker needs to tell a monitor's page's changes. */
export interface MonitorPageDirectives {
  monitor_id: string;
  /** The tick's run. */
  run_id: string;
  ignore: { selectors: string[]; patterns: string[] };
  /** The monitor watches a crawl scope: a page's sighting is written before its record answers (a complete tick's unseen pages are removed). */
  crawl_scope?: boolean;
}

/**
 * A monitor's crawl scope: each tick crawls it as POST /v1/crawl would (the same scope rules,
 * robots.txt, politeness, depth and page bounds) and compares the pages it finds; a page a complete
 * tick no longer finds is `removed`. robots.txt is always obeyed, and the crawl's own webhooks and
 * credit cap are the monitor's (webhook_url, the plan).
 */
export class MonitorCrawlScope extends PickType(CrawlRequest, [
  'url',
  'include_subdomains',
  'domains',
  'include_paths',
  'exclude_paths',
  'sitemap',
  'max_depth',
  'start_urls',
  'max_pages',
] as const) {}

/** `urls` or `crawl`, exactly one of them: put on both. */
function OneOfUrlsOrCrawl(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'oneOfUrlsOrCrawl',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'give the pages to watch as urls or as a crawl scope, not both.' },
      constraints: [],
      validator: {
        validate: (_value: unknown, args: ValidationArguments) => {
          const request = args.object as { urls?: unknown; crawl?: unknown };
          return !(request.urls !== undefined && request.crawl !== undefined);
        },
      },
    });
}

/** A tick's schedule: a fixed interval, or a cron expression (5 or 6 fields) in a time zone. */
export class MonitorSchedule {
  @ApiPropertyOptional({ type: 'integer', minimum: 60, description: 'Seconds between ticks; at least the plan’s minimum interval.' })
  @ValidateIf((schedule: MonitorSchedule) => schedule.cron === undefined || schedule.interval_seconds !== undefined)
  @IsInt({ message: 'schedule needs interval_seconds (an integer) or cron.' })
  @Min(60)
  @Max(31_536_000)
  interval_seconds?: number;

  @ApiPropertyOptional({
    example: '0 */6 * * *',
    description: 'A cron expression (croner syntax: 5 fields, or 6 with seconds); instead of interval_seconds.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cron?: string;

  @ApiPropertyOptional({ example: 'Europe/Berlin', default: 'UTC', description: 'The IANA time zone a cron expression is read in.' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  timezone?: string;
}

/** What a tick does not count as a change: CSS selectors of parts to drop, and text patterns (RE2) to blank. */
export class MonitorIgnoreRules {
  @ApiPropertyOptional({
    type: [String],
    example: ['.ad', '#clock', 'time'],
    description: 'CSS selectors of elements to leave out of the comparison.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MONITOR_LIMITS.ignoreRules)
  @IsString({ each: true })
  @Length(1, MONITOR_LIMITS.ruleLength, { each: true })
  selectors?: string[];

  @ApiPropertyOptional({
    type: [String],
    example: ['\\d{1,2}:\\d{2}(:\\d{2})?', 'Updated \\d+ minutes ago'],
    description: 'RE2 expressions: text they match is left out of the comparison (timestamps, counters, rotating greetings).',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MONITOR_LIMITS.ignoreRules)
  @IsString({ each: true })
  @Length(1, MONITOR_LIMITS.ruleLength, { each: true })
  patterns?: string[];
}

/** POST /v1/monitors. */
export class CreateMonitorRequest {
  @ApiPropertyOptional({ maxLength: 200, example: 'competitor prices' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['https://example.com/pricing'],
    description: 'The pages to watch (at most the plan’s monitor_urls); or `crawl` instead.',
  })
  @ValidateIf((request: CreateMonitorRequest) => request.crawl === undefined || request.urls !== undefined)
  @OneOfUrlsOrCrawl()
  @IsArray({ message: 'urls must be an array (or give a crawl scope instead).' })
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @IsString({ each: true })
  @MaxLength(8192, { each: true })
  @Matches(/^https?:\/\/[^\s/?#]+/i, { each: true, message: 'each of urls must be an http or https URL.' })
  urls?: string[];

  @ApiPropertyOptional({
    type: MonitorCrawlScope,
    description:
      'Instead of urls: a crawl scope each tick crawls (as POST /v1/crawl; max_pages at most the plan’s monitor_urls, and by default). A page a complete tick no longer finds is `removed`.',
  })
  @IsOptional()
  @OneOfUrlsOrCrawl()
  @IsObject()
  @ValidateNested()
  @Type(() => MonitorCrawlScope)
  crawl?: MonitorCrawlScope;

  @ApiProperty({ type: MonitorSchedule })
  @IsObject()
  @ValidateNested()
  @Type(() => MonitorSchedule)
  schedule: MonitorSchedule;

  @ApiPropertyOptional({
    ...openObject(
      'The scrape options of spec 2.1 for every page (any ScrapeRequest field but url and format: a monitor compares markdown).',
    ),
    example: { only_main_content: true },
  })
  @IsOptional()
  @IsObject()
  scrape?: Record<string, unknown>;

  @ApiPropertyOptional({
    ...openObject(
      'Named values to extract from each page (as `extract` of a scrape); a change in them is reported field by field (json_diff).',
    ),
    example: { price: '.price', title: 'h1' },
  })
  @IsOptional()
  @IsExtractionMap()
  extract?: Record<string, string | { selector: string; multiple?: boolean; attribute?: string }>;

  @ApiPropertyOptional({ type: MonitorIgnoreRules })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MonitorIgnoreRules)
  ignore?: MonitorIgnoreRules;

  @ApiPropertyOptional({
    description: 'POSTed a signed `monitor.changed` webhook after each tick that found a change (every tick with notify=always).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @Matches(/^https?:\/\//i, { message: 'webhook_url must be an http or https URL.' })
  webhook_url?: string;

  @ApiPropertyOptional({ enum: ['changes', 'always'], default: 'changes' })
  @IsOptional()
  @IsIn(['changes', 'always'])
  notify?: 'changes' | 'always';
}

/** A monitor as the API shows it. */
export class MonitorView {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ type: String, nullable: true })
  name: string | null;
  @ApiProperty({ enum: MONITOR_STATES })
  state: MonitorState;
  @ApiProperty({ type: [String], description: 'The pages watched; empty for a crawl-scope monitor (its ticks list what they found).' })
  urls: string[];
  @ApiProperty({ type: MonitorCrawlScope, nullable: true, description: 'The crawl scope each tick crawls; null for a URL monitor.' })
  crawl: MonitorCrawlScope | null;
  @ApiProperty({ type: MonitorSchedule })
  schedule: MonitorSchedule;
  @ApiProperty(openObject('The scrape options of every page.'))
  scrape: Record<string, unknown>;
  @ApiProperty(openObject('The extraction compared field by field.', { nullable: true }))
  extract: Record<string, unknown> | null;
  @ApiProperty({ type: MonitorIgnoreRules })
  ignore: { selectors: string[]; patterns: string[] };
  @ApiProperty({ type: String, nullable: true })
  webhook_url: string | null;
  @ApiProperty({ enum: ['changes', 'always'] })
  notify: 'changes' | 'always';
  @ApiProperty({ type: String, nullable: true, description: 'When the next tick is due (null while paused).' })
  next_tick_at: string | null;
  @ApiProperty({ type: String, nullable: true })
  last_tick_at: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'The tick (a run of kind monitor) in progress, if any.' })
  running_tick_id: string | null;
  @ApiProperty({ type: 'integer', description: 'Ticks started so far.' })
  ticks: number;
  @ApiProperty()
  created_at: string;
}

/** One tick of a monitor: a run of kind `monitor` on the job engine. */
export class MonitorTickView {
  @ApiProperty({ format: 'uuid', description: 'The run id: GET /v1/jobs?batch_id=<it> lists its pages with their change.' })
  tick_id: string;
  @ApiProperty({ enum: ['in_progress', 'completed'] })
  status: 'in_progress' | 'completed';
  @ApiProperty()
  started_at: string;
  @ApiProperty({ type: String, nullable: true })
  completed_at: string | null;
  @ApiProperty({ type: 'integer' })
  pages: number;
  @ApiProperty({ type: 'integer' })
  credits_charged: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Pages new, changed or removed (null until the tick completes).' })
  changes: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why the tick scraped nothing: its crawl scope was refused when it started (a start URL no longer allowed). Null otherwise.',
  })
  error: string | null;
}

/** One page that changed, as the changes listing and the webhook show it. */
export class PageChangeView {
  @ApiProperty()
  url: string;
  @ApiProperty({ enum: CHANGE_STATUSES })
  change_status: ChangeStatus;
  @ApiProperty({ format: 'uuid' })
  tick_id: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      'GET /v1/jobs/{job_id}/data: the page and its diff. Null for a page removed because a complete tick of a crawl-scope monitor no longer found it (no job fetched it).',
  })
  job_id: string | null;
  @ApiProperty()
  detected_at: string;
  @ApiProperty({ type: String, nullable: true, description: 'When the version before this one was first seen.' })
  previous_at: string | null;
}

export class MonitorChangesPage {
  @ApiProperty({ type: [PageChangeView] })
  changes: PageChangeView[];
}

// ---- messages between contexts ----

/** Create a monitor for a client (gateway → batch-orchestrator), with its plan's limits already applied. */
export class CreateMonitorCommand {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsObject()
  request: CreateMonitorRequest;

  @IsInt()
  @Min(1)
  max_concurrency: number;

  @IsOptional()
  @IsInt()
  monthly_credits: number | null;

  /** The plan's most monitors: a create past it is refused under the client's lock. */
  @IsInt()
  @Min(0)
  max_monitors: number;

  /** The plan's most pages per monitor: a crawl scope's max_pages (and its default). */
  @IsInt()
  @Min(1)
  max_pages: number;
}

export class MonitorReference {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsUUID()
  monitor_id: string;
}

export class MonitorTransitionCommand extends MonitorReference {
  @IsIn([...MONITOR_ACTIONS, 'delete', 'tick'])
  action: MonitorAction | 'delete' | 'tick';
}

export class ListMonitorsQuery {
  @IsString()
  @Length(1, 128)
  client_id: string;
}

export class MonitorChangesQuery extends MonitorReference {
  @IsInt()
  @Min(1)
  @Max(1000)
  limit: number;
}

/** A worker's page of a monitor's tick, compared and kept (scrape-engine → result-store); keyed by job id, so a repeat answers the same. */
export class RecordPageVersionCommand {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsUUID()
  monitor_id: string;

  @IsUUID()
  run_id: string;

  @IsUUID()
  job_id: string;

  /** The job's attempt: only a first attempt may be told "same" from the tick's heads (result-store's TickHeads). */
  @IsInt()
  @Min(1)
  attempt: number;

  @IsString()
  url: string;

  /** The page's markdown as compared (ignore rules applied); null when the page is gone (404/410). */
  @IsOptional()
  @IsString()
  content: string | null;

  @IsOptional()
  @IsObject()
  extracted: Record<string, unknown> | null;

  @IsString()
  fetched_at: string;

  /** A crawl-scope monitor's page: its sighting is written before the answer (MonitorPageDirectives.crawl_scope). */
  @IsOptional()
  @IsBoolean()
  crawl_scope?: boolean;
}

/** A complete tick of a crawl-scope monitor: its pages it did not see are removed (batch-orchestrator → result-store). */
export class RecordUnseenPagesCommand extends MonitorReference {
  @IsUUID()
  run_id: string;
}

/** One tick, by its run id (the tick reporter asks for its changed pages). */
export class MonitorTickReference {
  @IsUUID()
  run_id: string;
}

export class MonitorList {
  @ApiProperty({ type: [MonitorView] })
  monitors: MonitorView[];
}

export class MonitorTickList {
  @ApiProperty({ type: [MonitorTickView] })
  ticks: MonitorTickView[];
}

export class MonitorDeleted {
  @ApiProperty({ enum: [true] })
  deleted: true;
}
