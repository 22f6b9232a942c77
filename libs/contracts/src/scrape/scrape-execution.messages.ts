import { IsObject, IsString, Length } from 'class-validator';
import type { BillableMode } from '../billing/credit-reservation.messages';

/** Ask scrape-engine to run one scrape (gateway → scrape-engine; later also batch-orchestrator). */
export class ExecuteScrapeCommand {
  @IsString()
  @Length(1, 256)
  request_id: string;

  @IsString()
  @Length(1, 128)
  client_id: string;

  /** A ScrapeRequest as validated by the caller; scrape-engine validates it again at its edge. */
  @IsObject()
  request: Record<string, unknown>;
}

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

/** Ask scrape-engine to download one file (spec 2.9). */
export class ExecuteDownloadCommand {
  @IsString()
  @Length(1, 256)
  request_id: string;

  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsObject()
  request: Record<string, unknown>;
}

/** Spec 2.9 response. */
export interface DownloadResultBody {
  content: string | null;
  contentType: string | null;
  statusCode: number;
  message: string;
  executionTime: number | null;
}
