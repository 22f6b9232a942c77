import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ClientCreditScope } from '../billing/quota.messages';
import { nullableObject, openObject } from '../response-schema';

/** Spec 4.6 depths. quick: simple probes only; standard: + a light browser; full: + a heavy browser and API replays. */
export const VIABILITY_DEPTHS = ['quick', 'standard', 'full'] as const;
export type ViabilityDepth = (typeof VIABILITY_DEPTHS)[number];
export const DEFAULT_VIABILITY_DEPTH: ViabilityDepth = 'standard';
/** Spec 4.6 does not say; we take up to 100 URLs a run (the bound), duplicates dropped. */
export const MAX_VIABILITY_URLS = 100;
export const VIABILITY_STRATEGIES = ['extract_html', 'browser', 'api', 'blocked'] as const;
export const CLOUDFLARE_LEVEL_VALUES = ['none', 'present', 'challenge', 'interactive', 'block'] as const;
export const VIABILITY_DIFFICULTIES = ['easy', 'medium', 'hard', 'blocked'] as const;
export const VIABILITY_PAGE_LIMITS = { min: 1, max: 100, default: 20 } as const;
/** Full depth replays at most this many discovered endpoints (each a charged simple request). */
export const MAX_API_REPLAYS = 3;
/**
 * The most one URL's analysis can be charged at each depth (sync rules: simple 1, browser 5):
 * quick = plain GET + extraction GET; standard = + a light render; full = + a heavy render and the
 * endpoint replays. A run is refused up front (429) when the month cannot cover urls × this.
 */
export const VIABILITY_WORST_CASE_CREDITS: Record<ViabilityDepth, number> = { quick: 2, standard: 7, full: 7 + MAX_API_REPLAYS };

/** Start a viability run for one client (gateway → viability-analyzer). */
export class CreateViabilityRunCommand {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_VIABILITY_URLS)
  @IsString({ each: true })
  @MaxLength(8192, { each: true })
  urls: string[];

  @IsIn(VIABILITY_DEPTHS)
  depth: ViabilityDepth;

  /** The client's monthly credits as the gateway resolved them; the probes are charged against them. */
  @IsOptional()
  @IsInt()
  @Min(0)
  monthly_credits: number | null;
}

/**
 * Analyse one URL now and answer with its verdict (gateway → viability-analyzer): the agent
 * endpoint's `discover` tool. The probes are charged as a viability run's are, under charge keys
 * naming `request_id`, so a redelivered command is never charged twice.
 */
export class AnalyseUrlCommand extends ClientCreditScope {
  @IsString()
  @Length(1, 200)
  request_id: string;

  @IsString()
  @MaxLength(8192)
  url: string;

  @IsIn(VIABILITY_DEPTHS)
  depth: ViabilityDepth;
}

export class ViabilityRunReference {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsUUID()
  run_id: string;
}

export class ListViabilityRunsQuery {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsInt()
  @Min(VIABILITY_PAGE_LIMITS.min)
  @Max(VIABILITY_PAGE_LIMITS.max)
  limit: number;

  /** The last run_id of the previous page. */
  @IsOptional()
  @IsUUID()
  cursor?: string;
}

/** Spec 2.15 per-mode test result: what one probe of the URL got. */
export class ViabilityModeTest {
  @ApiProperty({ description: "The probe got usable content (the content validator's verdict)." })
  success: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: "The target's HTTP status; null when it never answered." })
  status_code: number | null;
  @ApiProperty({ default: false, description: 'The site refused the probe (block page, challenge, CAPTCHA, 401/403/429).' })
  blocked: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'The provider of the CAPTCHA that stood in front of the content.' })
  captcha_type: string | null;
  @ApiProperty({ type: 'integer', default: 0, description: 'How long the probe took, ms.' })
  time_ms: number;
  @ApiProperty({
    type: 'integer',
    default: 0,
    description: 'Credits the probe was charged (1 simple, 5 browser; failures on our side or the network are free).',
  })
  credits: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why it failed: a guidance error_type (spec 2.8), target_blocked, or quota_exceeded.',
  })
  error: string | null;
}

/** The per-mode tests a depth runs: quick runs the first two, standard and full all three. */
export class ViabilityModeTests {
  @ApiProperty(
    nullableObject(
      ViabilityModeTest,
      'A plain HTTP GET (format html), as POST /v1/sync/scrape does it; error target_blocked (nothing fetched, 0 credits) when the SSRF guard refused the URL, null when the analysis could not run.',
    ),
  )
  simple_request: ViabilityModeTest | null;
  @ApiProperty(
    nullableObject(
      ViabilityModeTest,
      'A plain GET with main-content extraction to markdown (format markdown): does the raw HTML hold the article? Null when not run (the URL was refused).',
    ),
  )
  extract_html: ViabilityModeTest | null;
  @ApiProperty(
    nullableObject(
      ViabilityModeTest,
      'A browser render with xhr/fetch capture (light at standard depth, heavy at full); null at quick depth or when not run.',
    ),
  )
  browser: ViabilityModeTest | null;
  @ApiProperty({
    type: [ViabilityModeTest],
    description:
      'Full depth: each discovered JSON endpoint fetched again without the page cookies (at most 5), charged as a simple request each: with the three above, every credit the URL cost. Empty otherwise.',
  })
  api_replays: ViabilityModeTest[];
}

/** Whether a login (or paywall) stands between a client and the content, and what showed it. */
export class ViabilityLoginWall {
  @ApiProperty()
  detected: boolean;
  @ApiProperty({
    type: [String],
    description: 'Evidence such as `status:401 www-authenticate:basic`, `redirect:/login?next=/`, `password-form`, `paywall:…`.',
  })
  evidence: string[];
}

/** One URL's analysis (spec 2.15 result entry, plus the evidence and a ready request). */
export class ViabilityResult {
  @ApiProperty()
  url: string;
  @ApiProperty({
    enum: VIABILITY_STRATEGIES,
    description:
      'extract_html: scrape without a browser; browser: browser=true; api: call api_endpoints directly; blocked: a CAPTCHA, challenge, login wall or refusal stands in the way (or the URL is not a public target).',
  })
  recommended_strategy: (typeof VIABILITY_STRATEGIES)[number];
  @ApiProperty({ description: 'Scripts produce most of what a reader sees (raw HTML against the rendered DOM).' })
  javascript_required: boolean;
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description:
      'How sure the analysis is that a browser is needed, 0–1: the share of visible text only scripts produced (0.6), an empty app root or noscript prompt (0.25), content elements that appeared on rendering (0.15).',
  })
  browser_confidence: number;
  @ApiProperty()
  captcha_detected: boolean;
  @ApiProperty({ type: [String], example: ['recaptcha'] })
  captcha_providers: string[];
  @ApiProperty({
    enum: CLOUDFLARE_LEVEL_VALUES,
    description:
      'none: not served by Cloudflare; present: served by it, no challenge; challenge: a JavaScript/managed challenge; interactive: Turnstile or a CAPTCHA; block: a firewall refusal (errors 1006/1010/1015/1020).',
  })
  cloudflare_level: (typeof CLOUDFLARE_LEVEL_VALUES)[number];
  @ApiProperty({ type: ViabilityLoginWall })
  login_wall: ViabilityLoginWall;
  @ApiProperty()
  api_detected: boolean;
  @ApiProperty({ type: [String], description: "Same-site JSON endpoints whose answers carry the page's visible content." })
  api_endpoints: string[];
  @ApiProperty({
    description:
      'An endpoint needs credentials: at full depth a replay without cookies got 401/403, otherwise the page sent credentials with it.',
  })
  api_auth_required: boolean;
  @ApiProperty()
  can_use_extract_html: boolean;
  @ApiProperty()
  can_use_browser: boolean;
  @ApiProperty()
  can_use_simple_request: boolean;
  @ApiProperty({ type: ViabilityModeTests })
  tests: ViabilityModeTests;
  @ApiProperty({ enum: VIABILITY_DIFFICULTIES })
  difficulty: (typeof VIABILITY_DIFFICULTIES)[number];
  @ApiProperty(openObject('A ready-to-send POST /v1/sync/scrape body for the recommended strategy; null when blocked.', { nullable: true }))
  suggested_request: Record<string, unknown> | null;
  @ApiProperty({ type: [String], description: 'The evidence behind the verdict, one line each, the deciding rule first.' })
  reasons: string[];
  @ApiProperty({ type: [String], description: 'Anti-bot vendors seen (present or challenging).' })
  protection: string[];
  @ApiProperty({
    type: [String],
    description: 'Data the HTML embeds for its scripts (__NEXT_DATA__, __NUXT__, application/ld+json, __INITIAL_STATE__).',
  })
  embedded_data: string[];
}

/** Spec 2.15 viability run. */
export class ViabilityRunView {
  @ApiProperty({ format: 'uuid' })
  run_id: string;
  @ApiProperty({ enum: ['in_progress', 'completed'] })
  status: 'in_progress' | 'completed';
  @ApiProperty({ enum: VIABILITY_DEPTHS })
  depth: ViabilityDepth;
  @ApiProperty({ type: 'integer' })
  total_urls: number;
  @ApiProperty({ type: 'integer' })
  completed_urls: number;
  @ApiProperty({
    type: [ViabilityResult],
    nullable: true,
    description: 'Null until completed_urls equals total_urls, then one entry per URL in request order.',
  })
  results: ViabilityResult[] | null;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  completed_at: string | null;
}

/** A client's viability runs, newest first (results left out: GET the run for them). */
export class ViabilityRunList {
  @ApiProperty({ type: [ViabilityRunView] })
  items: ViabilityRunView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' })
  cursor_next: string | null;
  @ApiProperty()
  has_more: boolean;
}
