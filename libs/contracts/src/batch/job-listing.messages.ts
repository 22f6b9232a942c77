import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import type { Packed } from '../packed';
import { ScrapeResultBody } from '../scrape/scrape-execution.messages';
import { nullableObject } from '../response-schema';
import { JOB_OUTCOMES, type JobOutcomeName } from '../scrape/success-criterion';
import { RunReference } from './collection.messages';
import { JOB_STATUSES, JobStatus } from './job-execution.messages';

export const JOB_ORDERS = ['id', 'completed_at'] as const;
export type JobOrder = (typeof JOB_ORDERS)[number];

/** Spec 8: page size 1–1000, at most 100 with include_results; inline bodies up to about 256 KB. */
export const JOB_PAGE_LIMITS = { default: 100, max: 1000, maxWithResults: 100, inlineResultBytes: 256 * 1024 } as const;
export const LISTED_URL_MAX = 2048;

/** A listed job's `outcome`, in GET /v1/jobs and a run's jobs listing alike. */
export const OUTCOME_PROPERTY = {
  enum: JOB_OUTCOMES,
  nullable: true,
  description:
    'What became of the job, in the one meaning every view counts by (run counters, usage metrics, console): success (usable content, is_success), failed (target 4xx/5xx, a block or CAPTCHA page, a content flag, or a worker failure), timeout, cancelled (before it ran); null while it waits or runs.',
} as const;

/** One page of a run's jobs (spec 4.5), already checked by the gateway. */
export class ListJobsQuery extends RunReference {
  @IsOptional()
  @IsString()
  @Length(1, 2000)
  cursor?: string;

  @IsInt()
  @Min(1)
  @Max(JOB_PAGE_LIMITS.max)
  limit: number;

  @IsOptional()
  @IsArray()
  @IsIn(JOB_STATUSES, { each: true })
  statuses?: JobStatus[];

  /** Epoch milliseconds; only rows completed strictly later. */
  @IsOptional()
  @IsInt()
  since_completed_at_ms?: number;

  @IsIn(JOB_ORDERS)
  order_by: JobOrder;

  @IsIn(['asc', 'desc'])
  order_dir: 'asc' | 'desc';

  @IsBoolean()
  include_results: boolean;
}

/** Spec 2.7 plus what the async job result adds. */
export class JobResultBody extends ScrapeResultBody {
  @ApiProperty()
  url: string;
  @ApiProperty({ type: String, nullable: true })
  custom_id: string | null;
  /** `cancelled`: a crawl's page that is another page (duplicate_of says which), the one cancelled job with a result. */
  @ApiProperty({ enum: [...JOB_STATUSES, 'cancelled'] })
  status: JobStatus | 'cancelled';
}

/** Spec 2.14, plus job_id and run_id: the names GET /v1/jobs uses, so one client reads both listings alike. */
export class JobListingItem {
  @ApiProperty({ format: 'uuid', description: "The job's id (spec 2.14's name); the same value as job_id." })
  job_public_id: string;
  @ApiProperty({ format: 'uuid', description: 'The same value as job_public_id, under the name GET /v1/jobs uses.' })
  job_id: string;
  @ApiProperty({ format: 'uuid' })
  run_public_id: string;
  @ApiProperty({ format: 'uuid', description: 'The same value as run_public_id.' })
  run_id: string;
  @ApiProperty({ format: 'uuid' })
  collection_id: string;
  @ApiProperty({ enum: JOB_STATUSES })
  status: JobStatus;
  @ApiProperty({ description: 'Truncated to 2048 characters.' })
  url: string;
  @ApiProperty()
  url_truncated: boolean;
  @ApiProperty({ type: String, nullable: true })
  custom_id: string | null;
  @ApiProperty({ type: 'integer', nullable: true })
  status_code: number | null;
  @ApiProperty({ type: String, nullable: true })
  message: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-24T10:00:00.000',
    description: 'ISO 8601 UTC, milliseconds, no zone suffix.',
  })
  queued_at: string | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-24T10:00:00.120' })
  started_at: string | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-24T10:00:01.480' })
  completed_at: string | null;
  @ApiProperty({ type: 'integer' })
  execution_time_ms: number;
  @ApiProperty({ type: 'integer' })
  retries_attempted: number;
  @ApiProperty({ type: String, nullable: true, description: 'Set by the content validator: captcha, softblock, shell, hard_block…' })
  block_reason: string | null;
  @ApiProperty({ type: [String] })
  protection_stack: string[];
  @ApiProperty({ type: [String] })
  rule_hits: string[];
  @ApiProperty({ type: Boolean, nullable: true })
  is_success: boolean | null;
  @ApiProperty(OUTCOME_PROPERTY)
  outcome: JobOutcomeName | null;
  @ApiPropertyOptional(
    nullableObject(JobResultBody, 'Only with include_results=true: the inline result of a completed job (null above about 256 KB).'),
  )
  result?: JobResultBody | null;
}

export class JobListingPage {
  @ApiProperty({ type: [JobListingItem] })
  items: JobListingItem[];
  @ApiProperty({ type: String, nullable: true })
  cursor_next: string | null;
  @ApiProperty()
  has_more: boolean;
}

export class GetJobResultQuery extends RunReference {
  /** Any string: a malformed id is answered with job_id_invalid, like an unknown one. */
  @IsString()
  @Length(1, 200)
  job_id: string;
}

export const RESULT_ERROR_CODES = ['result_pending', 'result_expired', 'result_lost', 'job_id_invalid', 'job_cancelled'] as const;
export type ResultErrorCode = (typeof RESULT_ERROR_CODES)[number];

export type JobResultReply =
  | { found: true; result: Packed<JobResultBody> }
  | { found: false; error_code: ResultErrorCode; message: string; completed_at: string | null; age_hours: number | null };

/** Run the retention sweep now (ops tooling and tests; it also runs on its own schedule). */
export class SweepRetentionCommand {}

export interface SweepRetentionReply {
  results_pruned: number;
  jobs_pruned: number;
  /** Page cache entries the origin has not given or confirmed for PAGE_CACHE_MAX_AGE_SECONDS: no request can be served them. */
  page_cache_pruned: number;
  /** Monitored pages' versions superseded (or, a page's newest, not seen) for MONITOR_HISTORY_DAYS. */
  page_versions_pruned: number;
  /** Monitors' changes detected more than MONITOR_HISTORY_DAYS ago. */
  page_changes_pruned: number;
}
