import {
  CLIENT_JOB_PAGE_LIMITS,
  CLIENT_JOB_STATUSES,
  JOB_OUTCOMES,
  MAX_BATCH_WRITE_REQUESTS,
  PROJECT_PAGE_LIMITS,
  PROJECT_STATUSES,
  SyncScrapeRequest,
} from '@lib/contracts';
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { ISO_TIME } from '../collections/collection.dto';

/** An optional, nullable http(s) callback_url (the SSRF guard vets it again in batch-orchestrator). */
function CallbackUrlField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, description }),
    IsOptional(),
    ValidateIf((_, v) => v !== null),
    IsString(),
    Length(1, 2048),
    Matches(/^https?:\/\//i, { message: 'callback_url must be an http or https URL.' }),
  );
}

/** POST /v1/projects. Problems of the body's shape are answered 422 with every problem listed. */
export class ProjectBody {
  @ApiProperty({ maxLength: 200, example: 'price-watch' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { format: 'markdown', only_main_content: true },
    description:
      "Scrape-request fields (spec 2.1, not url or custom_id) merged under every item of the project's batches; an item's own fields win. Each merged item is validated like a collection item.",
  })
  @IsOptional()
  @IsObject()
  defaults?: Record<string, unknown>;

  @CallbackUrlField("Webhook for the project's batches that name none.")
  callback_url?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    description: "Credits the project's jobs may be charged per UTC month.",
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  monthly_credit_cap?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 10_000,
    description: 'Jobs of the project in flight at once.',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(10_000)
  max_concurrent_jobs?: number | null;
}

export class ProjectListQuery {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ enum: PROJECT_STATUSES })
  @IsOptional()
  @IsIn(PROJECT_STATUSES, { message: `status must be one of ${PROJECT_STATUSES.join(', ')}.` })
  status?: (typeof PROJECT_STATUSES)[number];

  @ApiPropertyOptional({ description: 'cursor_next of the previous page; omit on the first call.' })
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  cursor?: string;

  @ApiPropertyOptional({ default: PROJECT_PAGE_LIMITS.default, minimum: 1, maximum: PROJECT_PAGE_LIMITS.max })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(PROJECT_PAGE_LIMITS.max)
  limit?: number;
}

const REQUESTS_DESCRIPTION =
  "Scrape requests (spec 2.1) with the project's defaults merged under each; each is validated on its own: a bad item is reported in invalid_items or blocked_urls, not refused with the body. Items repeating an earlier (url, custom_id) of the batch are skipped.";

/** POST /v1/batches. */
export class BatchBody {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  project_id: string;

  @ApiPropertyOptional({ maxLength: 200, default: 'New Batch' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @CallbackUrlField("Completion webhook; omitted: the project's callback_url.")
  callback_url?: string | null;

  @ApiPropertyOptional({ type: SyncScrapeRequest, isArray: true, maxItems: MAX_BATCH_WRITE_REQUESTS, description: REQUESTS_DESCRIPTION })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_BATCH_WRITE_REQUESTS, { message: `One write carries at most ${MAX_BATCH_WRITE_REQUESTS} requests.` })
  requests?: unknown[];
}

/** POST /v1/batches/{batch_id}/append-jobs. */
export class AppendJobsBody {
  @ApiProperty({ type: SyncScrapeRequest, isArray: true, maxItems: MAX_BATCH_WRITE_REQUESTS, description: REQUESTS_DESCRIPTION })
  @IsArray()
  @ArrayMaxSize(MAX_BATCH_WRITE_REQUESTS, { message: `One write carries at most ${MAX_BATCH_WRITE_REQUESTS} requests.` })
  requests: unknown[];
}

/** GET /v1/jobs. */
export class ClientJobListQuery {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID(undefined, { message: 'project_id must be a UUID.' })
  project_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'A batch id, or the run id of a collection run.' })
  @IsOptional()
  @IsUUID(undefined, { message: 'batch_id must be a UUID.' })
  batch_id?: string;

  @ApiPropertyOptional({ description: `One of ${CLIENT_JOB_STATUSES.join(', ')}, or a comma-separated list.` })
  @IsOptional()
  @IsString()
  @Matches(new RegExp(`^(${CLIENT_JOB_STATUSES.join('|')})(,(${CLIENT_JOB_STATUSES.join('|')}))*$`), {
    message: `status must be one or more of ${CLIENT_JOB_STATUSES.join(', ')}, comma-separated.`,
  })
  status?: string;

  @ApiPropertyOptional({
    description: `One of ${JOB_OUTCOMES.join(', ')}, or a comma-separated list: jobs that ended so (see the item's outcome). failed,timeout lists every job the run counters call failed or timed out.`,
  })
  @IsOptional()
  @IsString()
  @Matches(new RegExp(`^(${JOB_OUTCOMES.join('|')})(,(${JOB_OUTCOMES.join('|')}))*$`), {
    message: `outcome must be one or more of ${JOB_OUTCOMES.join(', ')}, comma-separated.`,
  })
  outcome?: string;

  @ApiPropertyOptional({ description: 'ISO 8601 (Z, +00:00 or no zone = UTC): jobs queued at or after it.' })
  @IsOptional()
  @IsString()
  @Matches(ISO_TIME, { message: 'since must be an ISO 8601 time.' })
  since?: string;

  @ApiPropertyOptional({ description: 'cursor_next of the previous page; omit on the first call.' })
  @IsOptional()
  @IsString()
  @Length(1, 2000)
  cursor?: string;

  @ApiPropertyOptional({ default: CLIENT_JOB_PAGE_LIMITS.default, minimum: 1, maximum: CLIENT_JOB_PAGE_LIMITS.max })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CLIENT_JOB_PAGE_LIMITS.max)
  limit?: number;
}
