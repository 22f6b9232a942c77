import {
  BillingClientData,
  BillingQuery,
  BillingReply,
  ClientMetricsQuery,
  ClientMetricsReply,
  DayRange,
  PlatformMetricsQuery,
  PlatformMetricsReply,
  UsageCounts,
} from '@lib/contracts';
import { CREDIT_COST } from '@lib/plans';
import { Injectable } from '@nestjs/common';
import { type LedgerGroup, LedgerReportStore, type TimeRange } from '../persistence/ledger-reports.store';

/**
 * Usage read from the credit ledger, the one record of every charged call (sync scrape, download,
 * batch job). Downloads count as simple requests (1 credit, spec 8). A call is a success when its
 * ledger entry says so (target 2xx without a block signal); every other charged call is failed.
 * Uncharged failures (the target never answered) are not in the ledger and not in these numbers.
 */
@Injectable()
export class UsageReports {
  constructor(private readonly ledger: LedgerReportStore) {}

  async billing(query: BillingQuery): Promise<BillingReply> {
    const rows = await this.ledger.monthGroups(query.month, query.client_id);
    const clients: Record<string, BillingClientData> = {};
    for (const row of rows) {
      const data = (clients[row.clientId] ??= { ...emptyCounts(), credits: { simple: 0, browser: 0, total: 0 } });
      addTo(data, row);
      data.credits[row.kind] += row.credits;
      data.credits.total += row.credits;
    }
    if (query.client_id) clients[query.client_id] ??= { ...emptyCounts(), credits: { simple: 0, browser: 0, total: 0 } };
    if (query.by_url) {
      const byUrl = await this.ledger.monthGroupsByDomain(query.month, query.client_id);
      for (const data of Object.values(clients)) data.by_url = {};
      for (const row of byUrl) {
        const domain = (clients[row.clientId].by_url![row.domain] ??= {
          simple_success: 0,
          simple_failed: 0,
          browser_success: 0,
          browser_failed: 0,
          total: 0,
        });
        domain[`${row.kind}_${row.success ? 'success' : 'failed'}`] += row.n;
        domain.total += row.n;
      }
    }
    return { month: query.month, clients, credit_system: { ...CREDIT_COST } };
  }

  async clientMetrics(query: ClientMetricsQuery): Promise<ClientMetricsReply> {
    const range = rangeOf(query);
    const rows = await this.ledger.clientGroups(query.client_id, range);
    const scrapeType = { simple: metricCell(), browser: metricCell() };
    const totals = metricCell();
    for (const row of rows) {
      for (const cell of [scrapeType[row.kind], totals]) addCell(cell, row);
    }
    const out: ClientMetricsReply = {
      client_id: query.client_id,
      date: { from: query.from, to: query.to },
      totals: finish(totals),
      scrape_type: { simple: finish(scrapeType.simple), browser: finish(scrapeType.browser) },
    };
    if (query.by_url) {
      const byUrl = await this.ledger.clientGroupsByDomain(query.client_id, range);
      const url: Record<string, ReturnType<typeof metricCell>> = {};
      for (const row of byUrl) addCell((url[row.domain] ??= metricCell()), row);
      out.url = Object.fromEntries(Object.entries(url).map(([k, v]) => [k, finish(v)]));
    }
    // One read of the hour buckets serves both views: hours summed over modes, and days by mode.
    const buckets = query.hourly || query.daily ? await this.ledger.clientGroupsByHour(query.client_id, range) : [];
    if (query.daily) {
      const daily: Record<string, { simple: ReturnType<typeof metricCell>; browser: ReturnType<typeof metricCell> }> = {};
      for (const day of daysOf(query)) daily[day] = { simple: metricCell(), browser: metricCell() };
      for (const row of buckets) addCell(daily[row.day][row.kind], row);
      out.daily = Object.fromEntries(
        Object.entries(daily).map(([day, modes]) => [day, { simple: finish(modes.simple), browser: finish(modes.browser) }]),
      );
    }
    if (query.hourly) {
      const hourly: Record<string, Array<ReturnType<typeof metricCell> & { hour: number }>> = {};
      for (const day of daysOf(query)) hourly[day] = Array.from({ length: 24 }, (_, hour) => ({ hour, ...metricCell() }));
      for (const row of buckets) addCell(hourly[row.day][row.hour], row);
      out.hourly = Object.fromEntries(
        Object.entries(hourly).map(([day, cells]) => [day, cells.map((c) => ({ ...finish(c), hour: c.hour }))]),
      );
    }
    return out;
  }

  async platformMetrics(query: PlatformMetricsQuery): Promise<PlatformMetricsReply> {
    const range = rangeOf(query);
    const out: PlatformMetricsReply = { date: { from: query.from, to: query.to } };
    for (const metric of query.metrics) {
      if (metric === 'exe_time') {
        const ms = await this.ledger.executionTimes(range);
        const rounded = (value: number | null) => (value === null || value === undefined ? null : Math.round(Number(value)));
        out.exe_time = {
          count: rounded(ms.count),
          avg_ms: rounded(ms.avg),
          min_ms: rounded(ms.min),
          max_ms: rounded(ms.max),
          p50_ms: rounded(ms.p50),
          p90_ms: rounded(ms.p90),
          p95_ms: rounded(ms.p95),
          p99_ms: rounded(ms.p99),
        };
      } else {
        const groups = await this.ledger.platformGroups(metric, range);
        out[metric] = Object.fromEntries(
          groups.map((r) => [r.key, { requests: r.n, success: r.success, failed: r.n - r.success, credits: r.credits }]),
        );
      }
    }
    return out;
  }
}

function emptyCounts(): UsageCounts {
  return {
    simple_success: 0,
    simple_failed: 0,
    simple_total: 0,
    browser_success: 0,
    browser_failed: 0,
    browser_total: 0,
    total_requests: 0,
    total_success: 0,
    total_failed: 0,
  };
}

function addTo(counts: UsageCounts, row: LedgerGroup): void {
  counts[`${row.kind}_${row.success ? 'success' : 'failed'}`] += row.n;
  counts[`${row.kind}_total`] += row.n;
  counts.total_requests += row.n;
  counts[row.success ? 'total_success' : 'total_failed'] += row.n;
}

function metricCell() {
  return { requests: 0, success: 0, failed: 0, credits: 0, exe_weighted: 0, exe_n: 0 };
}

function addCell(cell: ReturnType<typeof metricCell>, row: LedgerGroup & { exeMs?: number | null }): void {
  cell.requests += row.n;
  cell[row.success ? 'success' : 'failed'] += row.n;
  cell.credits += row.credits;
  if (row.exeMs !== undefined && row.exeMs !== null) {
    cell.exe_weighted += row.exeMs * row.n;
    cell.exe_n += row.n;
  }
}

function finish(cell: ReturnType<typeof metricCell>) {
  const { exe_weighted, exe_n, ...rest } = cell;
  return { ...rest, avg_execution_ms: exe_n > 0 ? Math.round(exe_weighted / exe_n) : null };
}

function rangeOf(range: DayRange): TimeRange {
  return { start: new Date(`${range.from}T00:00:00Z`), end: new Date(new Date(`${range.to}T00:00:00Z`).getTime() + 86_400_000) };
}

function daysOf(range: DayRange): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${range.from}T00:00:00Z`); t <= Date.parse(`${range.to}T00:00:00Z`); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
