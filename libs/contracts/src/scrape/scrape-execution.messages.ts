import { ArrayMaxSize, IsArray, IsInt, IsObject, IsString, Length, Min } from 'class-validator';
import type { BillableMode } from '../billing/credit-reservation.messages';

/** Work for scrape-engine on behalf of one client's request. */
export class EngineCommand {
  @IsString()
  @Length(1, 256)
  request_id: string;

  @IsString()
  @Length(1, 128)
  client_id: string;

  /** The request as validated by the caller; scrape-engine validates it again at its edge. */
  @IsObject()
  request: Record<string, unknown>;
}

/** Ask scrape-engine to run one scrape (a ScrapeRequest; gateway now, batch-orchestrator later). */
export class ExecuteScrapeCommand extends EngineCommand {}

/** The scrape response of spec 2.7 (the guidance object included). */
export interface ScrapeResultBody {
  html: string | null;
  markdown: string | null;
  statusCode: number;
  message: string;
  screenshot: string | null;
  executionTime: number;
  extracted_data: Record<string, unknown> | null;
  evaluate_results: unknown[] | null;
  network_requests: unknown[] | null;
  potentiallyBlockedByCaptcha: boolean;
  timings: Record<string, number>;
  guidance: Record<string, unknown>;
  content_type: string | null;
  body_base64: string | null;
  body_url: string | null;
  /** Browser mode: the action that stopped the action list (index path, type, why), else null. */
  action_error?: { action: string; type: string; message: string } | null;
}

export interface ScrapeExecutionFacts {
  /** Whether the site answered (site-level blocks included): then it is charged. */
  billable: boolean;
  credits: number;
  mode: BillableMode;
  target_domain: string;
  status_code: number | null;
  block_reason: string | null;
  protection_stack: string[];
  rule_hits: string[];
  rules_version: string;
  proxy: string | null;
  attempts: number;
}

/** Ask scrape-engine to download one file (a DownloadRequest, spec 2.9). */
export class ExecuteDownloadCommand extends EngineCommand {}

/** Spec 2.9 response. */
export interface DownloadResultBody {
  content: string | null;
  contentType: string | null;
  statusCode: number;
  message: string;
  executionTime: number | null;
}

/** What one scrape-engine replica is working on now (SUBJECTS.scrape.inFlight, every second). */
export class ScrapesInFlightEvent {
  @IsString()
  @Length(1, 256)
  worker_id: string;

  @IsArray()
  @ArrayMaxSize(100_000)
  @IsString({ each: true })
  request_ids: string[];

  @IsInt()
  @Min(0)
  interval_ms: number;
}
