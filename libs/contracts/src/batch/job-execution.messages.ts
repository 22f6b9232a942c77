import { IsInt, IsObject, IsOptional, IsString, IsUUID, Length, Min } from 'class-validator';
import type { Packed } from '../packed';
import type { CrawlPageDirectives } from '../discovery/crawl.messages';
import type { MonitorPageDirectives } from '../monitors/monitor.messages';
import type { ScrapeExecutionFacts, ScrapeResultBody } from '../scrape/scrape-execution.messages';

/**
 * What travels on the job queue (JetStream stream JOB_DISPATCH): only the job's identity and the
 * dispatch it belongs to. The request itself is read at claim time from the database, the source
 * of truth, so a message never carries stale state.
 */
export interface JobDispatch {
  job_id: string;
  attempt: number;
}

/** Identifies one dispatch of a job; a reply for an older attempt is refused (fencing). */
export class JobAttemptReference {
  @IsUUID()
  job_id: string;

  @IsInt()
  @Min(1)
  attempt: number;

  @IsString()
  @Length(1, 200)
  worker_id: string;
}

export class ClaimJobCommand extends JobAttemptReference {}

export type ClaimJobReply =
  | {
      outcome: 'claimed';
      client_id: string;
      request: Record<string, unknown>;
      lease_ms: number;
      deadline_ms: number;
      /** A crawl's page: what its crawl asks beyond the scrape (taken out of the stored request). */
      crawl_page?: CrawlPageDirectives;
      /** A monitor's page: what its tick compares the page with (taken out of the stored request). */
      monitor_page?: MonitorPageDirectives;
    }
  /** Another dispatch owns it, it is finished, or it was settled at claim (quota exhausted). */
  | { outcome: 'stale' };

export class HeartbeatJobCommand extends JobAttemptReference {}

export interface HeartbeatJobReply {
  /** False when the job is no longer this attempt's: stop working on it. */
  held: boolean;
}

/** SUBJECTS.jobs.workerAlive: one job worker's beat. */
export class JobWorkerAliveEvent {
  /** The worker id its claims carry (jobs.worker_id). */
  @IsString()
  @Length(1, 256)
  worker_id: string;

  /** Jobs it holds now (claimed or being claimed); 0 in its last beat before it goes idle. */
  @IsInt()
  @Min(0)
  jobs_in_hand: number;

  @IsInt()
  @Min(0)
  interval_ms: number;
}

export const JOB_FAILURE_KINDS = ['worker_failure', 'timeout'] as const;

export class CompleteJobCommand extends JobAttemptReference {
  /** Present when scrape-engine produced a scrape response (any target status). */
  @IsOptional()
  @IsObject()
  execution?: { facts: ScrapeExecutionFacts; result: Packed<ScrapeResultBody> };

  /** Present when it did not: the worker failed or ran out of time. */
  @IsOptional()
  @IsObject()
  failure?: { kind: (typeof JOB_FAILURE_KINDS)[number]; message: string };

  @IsInt()
  @Min(0)
  execution_time_ms: number;
}

export interface CompleteJobReply {
  /** False when the attempt was fenced off (a newer dispatch owns the job, or it is already final). */
  accepted: boolean;
}

export const JOB_STATUSES = ['processing', 'completed', 'failed', 'timeout'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
