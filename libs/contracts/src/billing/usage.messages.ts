import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { mapOf, mapOfLists } from '../response-schema';

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

/** Successes and failures by request kind (spec 2.17). */
export class OutcomeCounts {
  @ApiProperty({ type: 'integer' })
  simple_success: number;
  @ApiProperty({ type: 'integer' })
  simple_failed: number;
  @ApiProperty({ type: 'integer' })
  browser_success: number;
  @ApiProperty({ type: 'integer' })
  browser_failed: number;
}

/** Spec 2.17 client counts (integers, default 0). */
export class UsageCounts extends OutcomeCounts {
  @ApiProperty({ type: 'integer' })
  simple_total: number;
  @ApiProperty({ type: 'integer' })
  browser_total: number;
  @ApiProperty({ type: 'integer' })
  total_requests: number;
  @ApiProperty({ type: 'integer' })
  total_success: number;
  @ApiProperty({ type: 'integer' })
  total_failed: number;
}

export class CreditTotals {
  @ApiProperty({ type: 'integer' })
  simple: number;
  @ApiProperty({ type: 'integer' })
  browser: number;
  @ApiProperty({ type: 'integer' })
  total: number;
}

/** One domain of `by_url` (detail=urls). */
export class DomainUsage extends OutcomeCounts {
  @ApiProperty({ type: 'integer' })
  total: number;
}

export class BillingClientData extends UsageCounts {
  @ApiProperty({ type: CreditTotals })
  credits: CreditTotals;
  @ApiPropertyOptional(mapOf(DomainUsage, 'Per domain; only with detail=urls.'))
  by_url?: Record<string, DomainUsage>;
}

/** Credits per request kind (spec 2.17 credit_system). */
export class CreditSystem {
  @ApiProperty({ type: 'integer', example: 1 })
  simple_request: number;
  @ApiProperty({ type: 'integer', example: 5 })
  browser_request: number;
}

export class BillingReply {
  @ApiProperty({ example: '2026-11', pattern: '^\\d{4}-\\d{2}$' })
  month: string;
  @ApiProperty(mapOf(BillingClientData, 'Client id → usage and credits of the month.'))
  clients: Record<string, BillingClientData>;
  @ApiProperty({ type: CreditSystem })
  credit_system: CreditSystem;
}

export class DateSpan {
  @ApiProperty({ format: 'date' })
  from: string;
  @ApiProperty({ format: 'date' })
  to: string;
}

/** Calls, outcomes and credits of one group (a domain, a proxy, a status, a mode). */
export class GroupedUsage {
  @ApiProperty({ type: 'integer' })
  requests: number;
  @ApiProperty({ type: 'integer' })
  success: number;
  @ApiProperty({ type: 'integer' })
  failed: number;
  @ApiProperty({ type: 'integer' })
  credits: number;
}

/** One cell of the client metrics: GroupedUsage with the mean execution time. */
export class MetricCell extends GroupedUsage {
  @ApiProperty({ type: 'integer', nullable: true, description: 'Mean execution time, ms; null without calls.' })
  avg_execution_ms: number | null;
}

export class HourlyMetricCell extends MetricCell {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 23 })
  hour: number;
}

export class ScrapeTypeMetrics {
  @ApiProperty({ type: MetricCell })
  simple: MetricCell;
  @ApiProperty({ type: MetricCell })
  browser: MetricCell;
}

/** Spec 2.17 client metrics: the shape grows with detail=urls (url) and hourly=true (hourly). */
export class ClientMetricsReply {
  @ApiProperty()
  client_id: string;
  @ApiProperty({ type: DateSpan })
  date: DateSpan;
  @ApiProperty({ type: MetricCell })
  totals: MetricCell;
  @ApiProperty({ type: ScrapeTypeMetrics })
  scrape_type: ScrapeTypeMetrics;
  @ApiPropertyOptional(mapOf(MetricCell, 'Per domain; only with detail=urls.'))
  url?: Record<string, MetricCell>;
  @ApiPropertyOptional(mapOfLists(HourlyMetricCell, 'Day (YYYY-MM-DD) → 24 cells, one per UTC hour; only with hourly=true.'))
  hourly?: Record<string, HourlyMetricCell[]>;
  @ApiPropertyOptional(
    mapOf(ScrapeTypeMetrics, 'Day (YYYY-MM-DD) → {simple, browser}: every day of the period, by mode; only with daily=true.'),
  )
  daily?: Record<string, ScrapeTypeMetrics>;
}

/** Execution time statistics, ms (null without calls). */
export class ExecutionTimeStats {
  @ApiProperty({ type: 'integer', nullable: true })
  count: number | null;
  @ApiProperty({ type: 'integer', nullable: true })
  avg_ms: number | null;
  @ApiProperty({ type: 'integer', nullable: true })
  min_ms: number | null;
  @ApiProperty({ type: 'integer', nullable: true })
  max_ms: number | null;
  @ApiProperty({ type: 'integer', nullable: true })
  p50_ms: number | null;
  @ApiProperty({ type: 'integer', nullable: true })
  p90_ms: number | null;
  @ApiProperty({ type: 'integer', nullable: true })
  p95_ms: number | null;
  @ApiProperty({ type: 'integer', nullable: true })
  p99_ms: number | null;
}

/** Platform-wide statistics: the metrics asked for (all when none is named). */
export class PlatformMetricsReply {
  @ApiProperty({ type: DateSpan })
  date: DateSpan;
  @ApiPropertyOptional(mapOf(GroupedUsage, 'Per target domain.'))
  url?: Record<string, GroupedUsage>;
  @ApiPropertyOptional(mapOf(GroupedUsage, 'Per proxy (direct without one).'))
  proxy?: Record<string, GroupedUsage>;
  @ApiPropertyOptional(mapOf(GroupedUsage, 'Per API status answered for charged calls.'))
  api_codes?: Record<string, GroupedUsage>;
  @ApiPropertyOptional(mapOf(GroupedUsage, "Per target status code ('none' when it never answered)."))
  page_codes?: Record<string, GroupedUsage>;
  @ApiPropertyOptional(mapOf(GroupedUsage, 'Per mode (simple, browser, download).'))
  scrape_type?: Record<string, GroupedUsage>;
  @ApiPropertyOptional({ type: ExecutionTimeStats })
  exe_time?: ExecutionTimeStats;
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

  /** Adds usage by day and mode (a console's chart); absent from older callers means false. */
  @IsOptional()
  @IsBoolean()
  daily?: boolean;

  @IsBoolean()
  by_url: boolean;
}

export class PlatformMetricsQuery extends DayRange {
  @IsArray()
  @IsIn(PLATFORM_METRICS, { each: true })
  metrics: PlatformMetric[];
}
