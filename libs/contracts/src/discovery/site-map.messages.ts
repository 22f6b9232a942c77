import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { Type } from 'class-transformer';
import { openObject } from '../response-schema';
import { IsHttpUrlText, UrlRequired } from '../target-url-rules';

/** Where discovery takes URLs from: sitemaps and links (`include`), links only (`skip`), sitemaps only (`only`). */
export const SITEMAP_MODES = ['include', 'skip', 'only'] as const;
export type SitemapMode = (typeof SITEMAP_MODES)[number];

/**
 * The documented bounds of one map call (issue 39). A map is one request/reply: its fetches are
 * bounded by count and by time before any is made, so one client's map cannot hold a discovery
 * worker for longer than `timeout_ms`.
 */
export const MAP_LIMITS = {
  urls: { default: 5_000, max: 100_000 },
  depth: { default: 2, max: 10 },
  pageFetches: { default: 250, max: 2_000 },
  timeoutMs: { default: 15_000, min: 1_000, max: 60_000 },
  patterns: { max: 50, length: 500 },
  domains: { max: 20 },
} as const;

/** A glob, or a regular expression written `re:<expression>` (RE2 syntax: linear time, no backreferences). */
const PATTERN_DESCRIPTION =
  'Each is a glob matched against the URL path (`*` within a segment, `**` across segments, e.g. `/blog/**`), or a regular expression written `re:<expression>` matched against path and query (RE2 syntax: linear time, no lookaround or backreferences).';

/** An optional list of include or exclude patterns: documented and validated the same way. */
function PathPatterns(example: string[], meaning: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: [String], maxItems: MAP_LIMITS.patterns.max, example, description: `${meaning} ${PATTERN_DESCRIPTION}` }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAP_LIMITS.patterns.max),
    IsString({ each: true }),
    MinLength(1, { each: true }),
    MaxLength(MAP_LIMITS.patterns.length, { each: true }),
  );
}

/** Which URLs belong to a site: the start URL's host, optionally its subdomains and other hosts; path patterns. */
export class SiteScopeOptions {
  @ApiProperty({ example: 'https://example.com/', description: 'Where discovery starts: an http(s) URL on a public host.' })
  @UrlRequired()
  @IsString()
  @MaxLength(8192)
  @IsHttpUrlText()
  url: string;

  @ApiPropertyOptional({
    default: false,
    description: "Also the start host's subdomains (blog.example.com for example.com; www. is ignored when comparing).",
  })
  @IsOptional()
  @IsBoolean()
  include_subdomains?: boolean;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAP_LIMITS.domains.max,
    example: ['docs.example.com'],
    description: 'Further host names in scope (exact, lower case; no scheme or path).',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAP_LIMITS.domains.max)
  @IsString({ each: true })
  @Matches(/^[a-z0-9.-]{1,253}$/i, { each: true, message: 'each of domains must be a bare host name, e.g. docs.example.com.' })
  domains?: string[];

  @PathPatterns(['/blog/**'], 'Only URLs matching one of these.')
  include_paths?: string[];

  @PathPatterns(['/tag/*'], 'No URL matching one of these; exclusion wins over inclusion.')
  exclude_paths?: string[];

  @ApiPropertyOptional({
    enum: SITEMAP_MODES,
    default: 'include',
    description: 'include: sitemaps and links; skip: links only; only: sitemaps only (no page is fetched).',
  })
  @IsOptional()
  @IsIn(SITEMAP_MODES)
  sitemap?: SitemapMode;

  @ApiPropertyOptional({
    default: false,
    description:
      'Fetch and list URLs robots.txt disallows for every agent. Off by default; honoured only for clients whose plan allows it (admin), refused (403) otherwise.',
  })
  @IsOptional()
  @IsBoolean()
  ignore_robots?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAP_LIMITS.depth.max,
    default: MAP_LIMITS.depth.default,
    description:
      'Link hops from the start URL whose pages are fetched for links (0: the start page only). URLs found on the last fetched level are listed, not fetched.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAP_LIMITS.depth.max)
  max_depth?: number;
}

/** POST /v1/map: list a site's URLs from its sitemaps and links, without scraping them. */
export class MapSiteRequest extends SiteScopeOptions {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAP_LIMITS.urls.max,
    default: MAP_LIMITS.urls.default,
    description: 'The most URLs returned.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAP_LIMITS.urls.max)
  limit?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAP_LIMITS.pageFetches.max,
    default: MAP_LIMITS.pageFetches.default,
    description: 'The most HTML pages fetched for their links (sitemaps and robots.txt are not counted).',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAP_LIMITS.pageFetches.max)
  page_fetches?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: MAP_LIMITS.timeoutMs.min,
    maximum: MAP_LIMITS.timeoutMs.max,
    default: MAP_LIMITS.timeoutMs.default,
    description: 'The time the map may take; when it runs out the URLs found so far are returned with truncated=true.',
  })
  @IsOptional()
  @IsInt()
  @Min(MAP_LIMITS.timeoutMs.min)
  @Max(MAP_LIMITS.timeoutMs.max)
  timeout_ms?: number;
}

/** Map one site for a client (gateway → site-discovery). */
export class MapSiteCommand {
  @IsString()
  @MaxLength(128)
  client_id: string;

  @IsString()
  @MaxLength(256)
  request_id: string;

  /** Whether the client may set ignore_robots (checked by the gateway; carried so the context need not know plans). */
  @IsBoolean()
  robots_override_allowed: boolean;

  /** Validated again at the context's edge. */
  @ValidateNested()
  @Type(() => MapSiteRequest)
  request: MapSiteRequest;
}

/** Why a map stopped before it had seen everything in scope (null: it had). */
export const MAP_STOP_REASONS = ['limit', 'page_fetches', 'timeout'] as const;
export type MapStopReason = (typeof MAP_STOP_REASONS)[number];

/** What became of one sitemap file. */
export const SITEMAP_OUTCOMES = ['read', 'not_found', 'failed', 'too_large', 'malformed', 'blocked', 'out_of_scope', 'over_limit'] as const;

export class SitemapReport {
  @ApiProperty()
  url: string;

  @ApiProperty({
    enum: SITEMAP_OUTCOMES,
    description:
      'read; not_found (4xx); failed (5xx, network); too_large (over 50 MB decompressed); malformed (not a sitemap, or XML with a DTD); blocked (not a public target); out_of_scope (another host); over_limit (past 500 sitemap files or 3 index levels).',
  })
  outcome: (typeof SITEMAP_OUTCOMES)[number];

  @ApiProperty({ description: 'URLs it listed (for an index: sitemaps it named).' })
  urls: number;

  @ApiPropertyOptional({ nullable: true, type: String, description: 'What went wrong, when something did.' })
  detail: string | null;
}

export class RobotsReport {
  @ApiProperty({
    enum: ['found', 'none', 'unavailable', 'ignored'],
    description:
      'found; none (4xx: no rules); unavailable (5xx or unreachable: everything treated as disallowed, RFC 9309 §2.3.1.4); ignored (ignore_robots).',
  })
  status: 'found' | 'none' | 'unavailable' | 'ignored';

  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Crawl-delay for our agent or `*`, seconds (capped at 30).' })
  crawl_delay_seconds: number | null;

  @ApiProperty({ type: [String], description: 'Sitemaps robots.txt names.' })
  sitemaps: string[];
}

/** One link of a site's llms.txt (https://llmstxt.org): listed, never fetched by the map. */
export class LlmsTxtEntry {
  @ApiProperty()
  title: string;
  @ApiProperty({ description: 'Absolute, as the file links it (not normalised).' })
  url: string;
  @ApiProperty({ type: String, nullable: true, description: "The file's note after the link, if any." })
  description: string | null;
  @ApiProperty({ description: "Whether the URL is in the map's scope (host, paths): an entry outside it is listed only." })
  in_scope: boolean;
}

export class LlmsTxtSection {
  @ApiProperty({ description: 'The H2 heading the links sit under.' })
  name: string;
  @ApiProperty({ description: 'The "Optional" section: links a reader may skip (llmstxt.org).' })
  optional: boolean;
  @ApiProperty({ type: [LlmsTxtEntry] })
  entries: LlmsTxtEntry[];
}

/** What the site's /llms.txt says (decision 0042): its title, summary and links by section. */
export class LlmsTxtReport {
  @ApiProperty({ description: "Where it was looked for: /llms.txt at the start URL's origin." })
  url: string;
  @ApiProperty({
    enum: ['found', 'none', 'unavailable', 'not_llms_txt'],
    description:
      'found; none (4xx); unavailable (5xx, unreachable, too large, refused by the SSRF guard); not_llms_txt (an answer that is HTML or has no H1 title).',
  })
  status: 'found' | 'none' | 'unavailable' | 'not_llms_txt';
  @ApiProperty({ type: String, nullable: true, description: 'Its H1.' })
  title: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Its blockquote summary.' })
  summary: string | null;
  @ApiProperty({ type: [LlmsTxtSection] })
  sections: LlmsTxtSection[];
  @ApiProperty({ description: 'Links in all (at most 1,000 are listed).' })
  entries_total: number;
}

export class MapSkipCounts {
  @ApiProperty({ description: 'Disallowed by robots.txt (neither fetched nor listed).' })
  robots: number;
  @ApiProperty({ description: 'Outside the hosts or path patterns in scope.' })
  scope: number;
  @ApiProperty({ description: 'Dropped by a trap rule (too long, too deep, repeating segments, query permutations).' })
  trap: number;
  @ApiProperty({ description: 'Refused by the SSRF guard (not a public target).' })
  blocked: number;
  @ApiProperty({ description: 'Pages fetched that failed (network, 4xx, 5xx, not HTML).' })
  failed: number;
}

/** The map's answer: URLs in their normal form, once each, in discovery order. */
export class MapSiteResult {
  @ApiProperty({ description: 'The start URL in its normal form.' })
  url: string;

  @ApiProperty({ type: [String], description: 'Every URL found in scope, normalised (see docs/crawl.md), once each, in discovery order.' })
  urls: string[];

  @ApiProperty()
  count: number;

  @ApiProperty({ description: 'True when the map stopped before it had seen everything in scope (stopped_by says why).' })
  truncated: boolean;

  @ApiPropertyOptional({ enum: MAP_STOP_REASONS, nullable: true, type: String })
  stopped_by: MapStopReason | null;

  @ApiProperty({ ...openObject('URLs first found in sitemaps and in links.'), example: { sitemap: 10020, links: 200 } })
  sources: { sitemap: number; links: number };

  @ApiProperty({ type: RobotsReport })
  robots: RobotsReport;

  @ApiProperty({
    type: [SitemapReport],
    description: 'The sitemap files read or refused (at most the first 100; sitemaps_total counts all).',
  })
  sitemaps: SitemapReport[];

  @ApiProperty()
  sitemaps_total: number;

  @ApiProperty({ description: 'HTML pages fetched for links.' })
  pages_fetched: number;

  @ApiProperty({ type: MapSkipCounts })
  skipped: MapSkipCounts;

  @ApiProperty({
    type: LlmsTxtReport,
    description: "The site's /llms.txt, when it publishes one: its links listed by section, in scope or not (none is fetched).",
  })
  llms_txt: LlmsTxtReport;

  @ApiProperty()
  duration_ms: number;
}
