import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsIn, IsInt, IsOptional, IsString, IsUUID, Length, Max, Min, ValidateIf } from 'class-validator';
import { nullableObject } from '../response-schema';
import { CONTENT_RULES_VERSION } from '../scrape/success-criterion';

/** Spec 8: a collection holds at most this many requests. */
export const MAX_COLLECTION_REQUESTS = 1000;
export const DEFAULT_COLLECTION_NAME = 'New Collection';

/** Names one client's collection. */
export class CollectionReference {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsUUID()
  collection_id: string;
}

/** Create a collection (spec 2.11). Items are validated one by one by batch-orchestrator. */
export class CreateCollectionCommand {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsString()
  @Length(1, 500)
  name: string;

  @ValidateIf((_, v) => v !== null)
  @IsArray()
  requests: unknown[] | null;

  @ValidateIf((_, v) => v !== null)
  @IsString()
  callback_url: string | null;
}

/** Update a collection: fields left undefined keep their value; a supplied requests list replaces the old one. */
export class UpdateCollectionCommand extends CollectionReference {
  @IsOptional()
  @IsString()
  @Length(1, 500)
  name?: string;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsArray()
  requests?: unknown[] | null;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  callback_url?: string | null;
}

export class ListCollectionsQuery {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsOptional()
  @IsString()
  name?: string;

  @IsOptional()
  @IsString()
  name_prefix?: string;

  /** Epoch milliseconds; created at or after. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(8.64e15)
  since_ms?: number;
}

/** Spec 2.10, plus the stored callback_url and how many requests the collection holds. */
export class CollectionView {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty()
  name: string;
  @ApiProperty({ type: Number, nullable: true, description: 'Epoch seconds UTC; null for older collections.' })
  created_at: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Epoch seconds UTC; null for older collections.' })
  updated_at: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Webhook URL POSTed when a run completes.' })
  callback_url: string | null;
  @ApiProperty({ type: 'integer', description: 'Requests stored (after deduplication and validation).' })
  request_count: number;
}

export class ItemFieldError {
  @ApiProperty({ example: 'custom_id' })
  field: string;
  @ApiProperty({ example: 'string_too_long' })
  error_type: string;
  @ApiProperty()
  message: string;
}

/** An item rejected by field validation or a parameter rule (spec 2.12). */
export class InvalidItem {
  @ApiProperty({ type: 'integer', description: '0-based position in the submitted requests.' })
  index: number;
  @ApiProperty({ type: String, nullable: true, description: "The item's url when readable." })
  url: string | null;
  @ApiProperty({ type: [ItemFieldError] })
  errors: ItemFieldError[];
}

export const BLOCKED_URL_REASONS = [
  'private_ip',
  'dns_failed',
  'blocked_hostname',
  'invalid_protocol',
  'invalid_port',
  'malformed_url',
  'blocked',
] as const;

/** An item refused by the SSRF guard (spec 2.12). */
export class BlockedUrl {
  @ApiProperty({ type: 'integer', description: '0-based position in the submitted requests.' })
  index: number;
  @ApiProperty()
  url: string;
  @ApiProperty({ enum: BLOCKED_URL_REASONS })
  reason: string;
  @ApiProperty()
  message: string;
}

/** Spec 2.12: the update response carries only id, name and message. */
export class CollectionUpdateReply {
  @ApiProperty({ type: String, nullable: true, format: 'uuid' })
  id: string | null;
  @ApiProperty({ type: String, nullable: true })
  name: string | null;
  @ApiProperty()
  message: string;
}

/** Spec 2.12, the create form. */
export class CollectionWriteReply extends CollectionUpdateReply {
  @ApiProperty({ type: 'integer', default: 0, description: 'Items skipped as duplicates of an earlier (url, custom_id).' })
  duplicates_skipped: number;
  @ApiProperty({ type: [BlockedUrl] })
  blocked_urls: BlockedUrl[];
  @ApiProperty({ type: [InvalidItem] })
  invalid_items: InvalidItem[];
  @ApiProperty({ type: [String], description: 'One URL per skipped duplicate.' })
  duplicate_urls: string[];
}

/** DELETE answers with what it removed. */
export class CollectionDeleteReply {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ enum: [true] })
  deleted: boolean;
  @ApiProperty()
  message: string;
}

export const RUN_STATUSES = ['in_progress', 'completed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Start a run of a collection (spec 4.4); the gateway passes the client's plan limits along. */
export class StartRunCommand extends CollectionReference {
  @IsInt()
  @Min(1)
  @Max(10_000)
  max_concurrency: number;

  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(0)
  monthly_credits: number | null;
}

export class RunReference extends CollectionReference {
  @IsUUID()
  run_id: string;
}

export class ListRunsQuery extends CollectionReference {
  @IsOptional()
  @IsIn(RUN_STATUSES)
  status_filter?: RunStatus;
}

export const CALLBACK_STATUSES = ['pending', 'sent', 'failed', 'retrying'] as const;

/** A job of a completed run that did not deliver usable content. */
export class FailedJob {
  @ApiProperty({ format: 'uuid' })
  job_id: string;
  @ApiProperty()
  url: string;
  @ApiProperty({ type: String, nullable: true })
  custom_id: string | null;
  @ApiProperty({ enum: ['completed', 'failed', 'timeout'] })
  status: string;
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
}

export class SuccessCriterion {
  @ApiProperty({ example: CONTENT_RULES_VERSION, description: 'Changes whenever a rule changes meaning.' })
  version: string;
  @ApiProperty({ type: [String], description: 'Human-readable predicates; a job is a success only when all hold.' })
  rules: string[];
}

/** Spec 2.13. */
export class RunView {
  @ApiProperty({ format: 'uuid' })
  run_id: string;
  @ApiProperty({ enum: RUN_STATUSES })
  status: RunStatus;
  @ApiProperty({ type: 'integer' })
  total_requests: number;
  @ApiProperty({ type: 'integer' })
  success_requests: number;
  @ApiProperty({ type: 'integer', description: 'Includes cancelled_requests.' })
  failed_requests: number;
  @ApiProperty({ type: 'integer' })
  timeout_requests: number;
  /** Not in the spec: the part of failed_requests cancelled before it ran (POST …/cancel), never charged. */
  @ApiProperty({
    type: 'integer',
    description: 'Not in the spec: the part of failed_requests cancelled before it ran (POST …/cancel); never charged.',
  })
  cancelled_requests: number;
  @ApiProperty({ format: 'uuid' })
  collection_id: string;
  @ApiProperty({ type: [String] })
  job_ids: string[];
  @ApiProperty({ type: String, nullable: true })
  callback_url: string | null;
  @ApiProperty({ type: String, nullable: true, enum: CALLBACK_STATUSES })
  callback_status: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Epoch seconds; null for older runs.' })
  created_at: number | null;
  @ApiPropertyOptional({ type: [FailedJob], description: 'On a completed run.' })
  failed_jobs?: FailedJob[];
  @ApiProperty(nullableObject(SuccessCriterion))
  success_criterion: SuccessCriterion | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'True once every job of the run is in the listing.' })
  all_jobs_persisted: boolean | null;
  /** Not in the spec: what the run has charged so far (never more than its jobs did). */
  @ApiProperty({ type: 'integer', description: 'Not in the spec: credits the run has charged so far.' })
  credits_charged: number;
}

/** GET …/runs. */
export class RunList {
  @ApiProperty({ type: [RunView] })
  items: RunView[];
  @ApiProperty({ type: 'integer' })
  total: number;
}
