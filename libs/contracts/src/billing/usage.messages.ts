import { IsArray, IsBoolean, IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';

export const PLATFORM_METRICS = ['url', 'proxy', 'api_codes', 'page_codes', 'exe_time', 'scrape_type'] as const;
export type PlatformMetric = (typeof PLATFORM_METRICS)[number];

/** Spec 2.17 billing for one month: one client, or every client (admin). */
export class BillingQuery {
  @IsOptional()
  @IsString()
  @Length(1, 128)
  client_id?: string;

  @Matches(/^\d{4}-(0[1-9]|1[0-2])$/)
  month: string;

  @IsBoolean()
  by_url: boolean;
}

export interface UsageCounts {
  simple_success: number;
  simple_failed: number;
  simple_total: number;
  browser_success: number;
  browser_failed: number;
  browser_total: number;
  total_requests: number;
  total_success: number;
  total_failed: number;
}

export interface BillingClientData extends UsageCounts {
  credits: { simple: number; browser: number; total: number };
  by_url?: Record<string, { simple_success: number; simple_failed: number; browser_success: number; browser_failed: number; total: number }>;
}

export interface BillingReply {
  month: string;
  clients: Record<string, BillingClientData>;
  credit_system: { simple_request: number; browser_request: number };
}

/** A UTC day range, both ends included (YYYY-MM-DD). */
export class DayRange {
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  from: string;

  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  to: string;
}

export class ClientMetricsQuery extends DayRange {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsBoolean()
  hourly: boolean;

  @IsBoolean()
  by_url: boolean;
}

export class PlatformMetricsQuery extends DayRange {
  @IsArray()
  @IsIn(PLATFORM_METRICS, { each: true })
  metrics: PlatformMetric[];
}
