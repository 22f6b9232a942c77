import { IsArray, IsIn, IsInt, IsOptional, IsString, IsUUID, Length, Max, Min, ValidateIf } from 'class-validator';

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

/** Spec 2.10. */
export interface CollectionView {
  id: string;
  name: string;
  created_at: number | null;
  updated_at: number | null;
  callback_url: string | null;
  request_count: number;
}

export interface InvalidItem {
  index: number;
  url: string | null;
  errors: Array<{ field: string; error_type: string; message: string }>;
}

export interface BlockedUrl {
  index: number;
  url: string;
  reason: string;
  message: string;
}

/** Spec 2.12 (the create form; update answers with id, name and message only). */
export interface CollectionWriteReply {
  id: string | null;
  name: string | null;
  message: string;
  duplicates_skipped: number;
  blocked_urls: BlockedUrl[];
  invalid_items: InvalidItem[];
  duplicate_urls: string[];
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

/** Spec 2.13. */
export interface RunView {
  run_id: string;
  status: RunStatus;
  total_requests: number;
  success_requests: number;
  failed_requests: number;
  timeout_requests: number;
  collection_id: string;
  job_ids: string[];
  callback_url: string | null;
  callback_status: string | null;
  created_at: number | null;
  failed_jobs?: Array<{ job_id: string; url: string; custom_id: string | null; status: string; error: string | null }>;
  success_criterion: { version: string; rules: string[] } | null;
  all_jobs_persisted: boolean | null;
  /** Not in the spec: what the run has charged so far (never more than its jobs did). */
  credits_charged: number;
}
