import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, IsUUID, Length, Max, Min, ValidateIf } from 'class-validator';
import { openObject } from '../response-schema';
import { JOB_OUTCOMES, type JobOutcomeName } from '../scrape/success-criterion';
import { BlockedUrl, InvalidItem, RunReference } from './collection.messages';
import { OUTCOME_PROPERTY } from './job-listing.messages';
import { RUN_ACTIONS, RUN_KINDS, RUN_STATES, type RunAction, type RunKind, type RunState } from './run-kinds';

/** Projects and batches (spec 4.8, decision 0014): a batch is a run of kind `batch` on the collection runs' job engine. */

export const PROJECT_STATUSES = ['active', 'paused', 'closed'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export const PROJECT_ACTIONS = ['pause', 'resume', 'close'] as const;
export type ProjectAction = (typeof PROJECT_ACTIONS)[number];

/** A batch (spec 4.8) is a run of kind `batch`: its states and actions are every run's. */
export const BATCH_STATES = RUN_STATES;
export type BatchState = RunState;
export const BATCH_ACTIONS = RUN_ACTIONS;
export type BatchAction = RunAction;

/** The job statuses of /v1/jobs: the engine's `processing` split in two, and `cancelled` as it is. */
export const CLIENT_JOB_STATUSES = ['pending', 'running', 'completed', 'failed', 'timeout', 'cancelled'] as const;
export type ClientJobStatus = (typeof CLIENT_JOB_STATUSES)[number];

/** Spec 8's collection limit holds per write: one create or append carries at most this many requests. */
export const MAX_BATCH_WRITE_REQUESTS = 1000;
/** A batch grows by appends up to this many jobs. */
export const MAX_BATCH_JOBS = 100_000;
export const PROJECT_PAGE_LIMITS = { default: 50, max: 200 } as const;
export const CLIENT_JOB_PAGE_LIMITS = { default: 100, max: 1000 } as const;

class ClientScope {
  @IsString()
  @Length(1, 128)
  client_id: string;
}

/** The plan limits the gateway resolved for the client, carried onto the batch's run. */
class PlanLimits extends ClientScope {
  @IsInt()
  @Min(1)
  @Max(10_000)
  max_concurrency: number;

  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(0)
  monthly_credits: number | null;
}

export class CreateProjectCommand extends ClientScope {
  @IsString()
  @Length(1, 200)
  name: string;

  /** Scrape-request fields (no url or custom_id) merged under every item of the project's batches. */
  @IsObject()
  defaults: Record<string, unknown>;

  @ValidateIf((_, v) => v !== null)
  @IsString()
  callback_url: string | null;

  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  monthly_credit_cap: number | null;

  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(10_000)
  max_concurrent_jobs: number | null;
}

export class ProjectReference extends ClientScope {
  @IsUUID()
  project_id: string;
}

export class ProjectTransitionCommand extends ProjectReference {
  @IsIn(PROJECT_ACTIONS)
  action: ProjectAction;
}

export class ListProjectsQuery extends ClientScope {
  @IsOptional()
  @IsIn(PROJECT_STATUSES)
  status?: ProjectStatus;

  @IsOptional()
  @IsString()
  @Length(1, 1024)
  cursor?: string;

  @IsInt()
  @Min(1)
  @Max(PROJECT_PAGE_LIMITS.max)
  limit: number;
}

export class ProjectsSummaryQuery extends ClientScope {}

export class ProjectView {
  @ApiProperty({ format: 'uuid' })
  project_id: string;
  @ApiProperty()
  name: string;
  @ApiProperty({ enum: PROJECT_STATUSES })
  status: ProjectStatus;
  @ApiProperty(openObject("Scrape-request fields merged under every item of the project's batches (an item's own fields win)."))
  defaults: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true, description: "Webhook URL for the project's batches that name none." })
  callback_url: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "Credits the project's jobs may be charged per UTC month; null: none." })
  monthly_credit_cap: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "Jobs of the project in flight at once; null: the plan's concurrency." })
  max_concurrent_jobs: number | null;
  @ApiProperty({ type: 'integer', description: 'Epoch seconds UTC.' })
  created_at: number;
  @ApiProperty({ type: 'integer', description: 'Epoch seconds UTC: the last change of settings or status.' })
  updated_at: number;
}

export class ProjectList {
  @ApiProperty({ type: [ProjectView] })
  items: ProjectView[];
  @ApiProperty({ type: String, nullable: true })
  cursor_next: string | null;
  @ApiProperty()
  has_more: boolean;
}

/** A project's closing cancels its open, running and paused batches. */
export class ProjectTransitionReply extends ProjectView {
  @ApiPropertyOptional({ type: [String], description: 'On close: the batches it cancelled.' })
  cancelled_batches?: string[];
}

export class JobCounts {
  @ApiProperty({ type: 'integer', description: 'Waiting to be dispatched (or paused).' })
  pending: number;
  @ApiProperty({ type: 'integer', description: 'Dispatched to a worker.' })
  running: number;
  @ApiProperty({ type: 'integer' })
  completed: number;
  @ApiProperty({ type: 'integer' })
  failed: number;
  @ApiProperty({ type: 'integer' })
  timeout: number;
  @ApiProperty({ type: 'integer', description: 'Cancelled before they ran; never charged.' })
  cancelled: number;
}

/** Finished jobs by outcome (JOB_OUTCOMES): the meaning of failed that run counters and usage metrics use. */
export class JobOutcomeCounts {
  @ApiProperty({ type: 'integer', description: 'Usable content delivered (is_success).' })
  success: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Ended without usable content: target 4xx/5xx, a block or CAPTCHA page, a content flag (status completed), or a worker failure (status failed).',
  })
  failed: number;
  @ApiProperty({ type: 'integer' })
  timeout: number;
  @ApiProperty({ type: 'integer' })
  cancelled: number;
}

export class ProjectSummary {
  @ApiProperty({ format: 'uuid' })
  project_id: string;
  @ApiProperty()
  name: string;
  @ApiProperty({ enum: PROJECT_STATUSES })
  status: ProjectStatus;
  @ApiProperty({
    type: JobCounts,
    description:
      "Jobs of the project's batches by status, their lifecycle: a job whose target answered 404 is completed here (jobs pruned by retention are no longer counted).",
  })
  jobs: JobCounts;
  @ApiProperty({
    type: JobOutcomeCounts,
    description: 'The finished jobs of jobs, by outcome: a completed 404 counts as failed here, as in run counters and usage metrics.',
  })
  outcomes: JobOutcomeCounts;
  @ApiProperty({ type: 'integer', description: "Credits charged to the project's jobs this UTC month (the ledger's project figure)." })
  credits_used_this_month: number;
  @ApiProperty({ type: 'integer', nullable: true })
  monthly_credit_cap: number | null;
  @ApiProperty({ type: 'integer', nullable: true })
  max_concurrent_jobs: number | null;
  @ApiProperty({ description: 'Whether the project can start another job now: active, under its cap and its concurrency.' })
  has_capacity: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['paused', 'closed', 'credit_cap_reached', 'concurrency_full'],
    description: 'Why has_capacity is false; null when it is true.',
  })
  capacity_reason: string | null;
}

export class ProjectsSummary {
  @ApiProperty({ example: '2026-11' })
  month: string;
  @ApiProperty({ type: [ProjectSummary], description: 'Every project of the client, oldest first (closed ones included).' })
  items: ProjectSummary[];
}

export class CreateBatchCommand extends PlanLimits {
  @IsUUID()
  project_id: string;

  @IsString()
  @Length(1, 200)
  name: string;

  /** Undefined: the project's callback_url. */
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  callback_url?: string | null;

  @IsArray()
  requests: unknown[];
}

export class BatchReference extends ClientScope {
  @IsUUID()
  batch_id: string;
}

export class AppendJobsCommand extends PlanLimits {
  @IsUUID()
  batch_id: string;

  @IsArray()
  requests: unknown[];
}

export class BatchTransitionCommand extends PlanLimits {
  @IsUUID()
  batch_id: string;

  @IsIn(BATCH_ACTIONS)
  action: BatchAction;
}

/** A batch: its lifecycle state and the run counters of spec 2.13 (total = success + failed + timeout once completed). */
export class BatchView {
  @ApiProperty({ format: 'uuid' })
  batch_id: string;
  @ApiProperty({ format: 'uuid' })
  project_id: string;
  @ApiProperty()
  name: string;
  @ApiProperty({ enum: BATCH_STATES })
  state: BatchState;
  @ApiProperty({ enum: ['in_progress', 'completed'], description: 'The run status of spec 2.13.' })
  status: 'in_progress' | 'completed';
  @ApiProperty({ type: 'integer' })
  total_requests: number;
  @ApiProperty({ type: 'integer' })
  success_requests: number;
  @ApiProperty({ type: 'integer', description: 'Includes cancelled_requests.' })
  failed_requests: number;
  @ApiProperty({ type: 'integer' })
  timeout_requests: number;
  @ApiProperty({ type: 'integer', description: 'Jobs cancelled before they ran (never charged); counted in failed_requests.' })
  cancelled_requests: number;
  @ApiProperty({ type: 'integer' })
  credits_charged: number;
  @ApiProperty({ type: String, nullable: true })
  callback_url: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['pending', 'sent', 'failed', 'retrying'] })
  callback_status: string | null;
  @ApiProperty({ type: 'integer', description: 'Epoch seconds UTC.' })
  created_at: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Epoch seconds UTC; set when every job is terminal.' })
  completed_at: number | null;
}

/** Create and append: the batch after the write, and what the write refused (the collection rules of spec 2.12). */
export class BatchWriteReply extends BatchView {
  @ApiProperty({ type: 'integer', description: 'Jobs this write added.' })
  added_requests: number;
  @ApiProperty({ type: 'integer', description: 'Items skipped as duplicates of an earlier (url, custom_id) of the batch.' })
  duplicates_skipped: number;
  @ApiProperty({ type: [String] })
  duplicate_urls: string[];
  @ApiProperty({ type: [BlockedUrl] })
  blocked_urls: BlockedUrl[];
  @ApiProperty({ type: [InvalidItem] })
  invalid_items: InvalidItem[];
  @ApiProperty()
  message: string;
}

/** Cancel a collection run (not in the spec). */
export class CancelRunCommand extends RunReference {}

export class ListClientJobsQuery extends ClientScope {
  @IsOptional()
  @IsUUID()
  project_id?: string;

  @IsOptional()
  @IsUUID()
  batch_id?: string;

  @IsOptional()
  @IsArray()
  @IsIn(CLIENT_JOB_STATUSES, { each: true })
  statuses?: ClientJobStatus[];

  @IsOptional()
  @IsArray()
  @IsIn(JOB_OUTCOMES, { each: true })
  outcomes?: JobOutcomeName[];

  /** Epoch milliseconds: jobs queued at or after. */
  @IsOptional()
  @IsInt()
  since_ms?: number;

  @IsOptional()
  @IsString()
  @Length(1, 2000)
  cursor?: string;

  @IsInt()
  @Min(1)
  @Max(CLIENT_JOB_PAGE_LIMITS.max)
  limit: number;
}

export class ClientJobItem {
  @ApiProperty({ format: 'uuid' })
  job_id: string;
  @ApiProperty({ format: 'uuid', description: "The same value as job_id, under spec 2.14's name (a run's jobs listing)." })
  job_public_id: string;
  @ApiProperty({ format: 'uuid', description: 'The batch (or collection run) the job belongs to.' })
  batch_id: string;
  @ApiProperty({ enum: RUN_KINDS })
  batch_kind: RunKind;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' })
  project_id: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'Collection runs only.' })
  collection_id: string | null;
  @ApiProperty({ enum: CLIENT_JOB_STATUSES })
  status: ClientJobStatus;
  @ApiProperty({ description: 'Truncated to 2048 characters.' })
  url: string;
  @ApiProperty()
  url_truncated: boolean;
  @ApiProperty({ type: String, nullable: true })
  custom_id: string | null;
  @ApiProperty({ type: 'integer', nullable: true })
  status_code: number | null;
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
  @ApiProperty({ type: String, example: '2026-11-25T10:00:00.000', description: 'ISO 8601 UTC, milliseconds, no zone suffix.' })
  queued_at: string;
  @ApiProperty({ type: String, nullable: true })
  started_at: string | null;
  @ApiProperty({ type: String, nullable: true })
  completed_at: string | null;
  @ApiProperty({ type: 'integer' })
  retries_attempted: number;
  @ApiProperty({ type: Boolean, nullable: true })
  is_success: boolean | null;
  @ApiProperty(OUTCOME_PROPERTY)
  outcome: JobOutcomeName | null;
  @ApiProperty({ type: 'integer' })
  credits: number;
}

export class ClientJobPage {
  @ApiProperty({ type: [ClientJobItem] })
  items: ClientJobItem[];
  @ApiProperty({ type: String, nullable: true })
  cursor_next: string | null;
  @ApiProperty()
  has_more: boolean;
}

export class GetJobDataQuery extends ClientScope {
  /** Any string: a malformed id is answered with job_id_invalid, like an unknown one. */
  @IsString()
  @Length(1, 200)
  job_id: string;
}

export class CreditSummaryQuery extends ClientScope {
  @IsString()
  @Length(1, 64)
  plan: string;

  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(0)
  monthly_credits: number | null;
}

export class CreditsByKind {
  @ApiProperty({ type: 'integer' })
  simple: number;
  @ApiProperty({ type: 'integer' })
  browser: number;
  @ApiProperty({ type: 'integer' })
  download: number;
  @ApiProperty({ type: 'integer', description: 'Probes of viability tests.' })
  viability: number;
}

export class ProjectCredits {
  @ApiProperty({ format: 'uuid' })
  project_id: string;
  @ApiProperty({ type: 'integer' })
  credits: number;
}

export class CreditSummary {
  @ApiProperty({ example: '2026-11' })
  month: string;
  @ApiProperty()
  plan: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Monthly credits; null: unlimited.' })
  limit: number | null;
  @ApiProperty({ type: 'integer', description: "Charged this month: the ledger's sum, equal to /v1/sync/billing's credits.total." })
  used: number;
  @ApiProperty({ type: 'integer', description: 'Held by work in flight (counted against the quota until charged or released).' })
  held: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'limit − used − held; null: unlimited.' })
  remaining: number | null;
  @ApiProperty({ type: 'integer', description: 'Unix seconds when the month resets.' })
  resets_at: number;
  @ApiProperty({ type: CreditsByKind, description: 'used, by what was charged; the kinds sum to used.' })
  by_kind: CreditsByKind;
  @ApiProperty({ type: [ProjectCredits], description: 'used, by project (batch jobs only); the rest is in outside_projects.' })
  by_project: ProjectCredits[];
  @ApiProperty({ type: 'integer', description: 'Credits charged outside any project (sync calls, collection runs, viability).' })
  outside_projects: number;
}
