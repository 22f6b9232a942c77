import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import type { Packed } from '../packed';
import type { ScrapeResultBody } from '../scrape/scrape-execution.messages';
import { RunReference } from './collection.messages';
import { JOB_STATUSES, JobStatus } from './job-execution.messages';

export const JOB_ORDERS = ['id', 'completed_at'] as const;
export type JobOrder = (typeof JOB_ORDERS)[number];

/** Spec 8: page size 1–1000, at most 100 with include_results; inline bodies up to about 256 KB. */
export const JOB_PAGE_LIMITS = { default: 100, max: 1000, maxWithResults: 100, inlineResultBytes: 256 * 1024 } as const;
export const LISTED_URL_MAX = 2048;

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

/** Spec 2.14. */
export interface JobListingItem {
  job_public_id: string;
  run_public_id: string;
  collection_id: string;
  status: JobStatus;
  url: string;
  url_truncated: boolean;
  custom_id: string | null;
  status_code: number | null;
  message: string | null;
  queued_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  execution_time_ms: number;
  retries_attempted: number;
  block_reason: string | null;
  protection_stack: string[];
  rule_hits: string[];
  is_success: boolean | null;
  result?: (ScrapeResultBody & { url: string; custom_id: string | null; status: JobStatus }) | null;
}

export interface JobListingPage {
  items: JobListingItem[];
  cursor_next: string | null;
  has_more: boolean;
}

export class GetJobResultQuery extends RunReference {
  /** Any string: a malformed id is answered with job_id_invalid, like an unknown one. */
  @IsString()
  @Length(1, 200)
  job_id: string;
}

export const RESULT_ERROR_CODES = ['result_pending', 'result_expired', 'result_lost', 'job_id_invalid'] as const;
export type ResultErrorCode = (typeof RESULT_ERROR_CODES)[number];

export type JobResultReply =
  | { found: true; result: Packed<ScrapeResultBody & { url: string; custom_id: string | null; status: JobStatus }> }
  | { found: false; error_code: ResultErrorCode; message: string; completed_at: string | null; age_hours: number | null };

/** Run the retention sweep now (ops tooling and tests; it also runs on its own schedule). */
export class SweepRetentionCommand {}

export interface SweepRetentionReply {
  results_pruned: number;
  jobs_pruned: number;
}
