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
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CREDIT_COST } from '@lib/plans';
import { Inject, Injectable } from '@nestjs/common';

/**
 * Usage read from the credit ledger, the one record of every charged call (sync scrape, download,
 * batch job). Downloads count as simple requests (1 credit, spec 8). A call is a success when its
 * ledger entry says so (target 2xx without a block signal); every other charged call is failed.
 * Uncharged failures (the target never answered) are not in the ledger and not in these numbers.
 */
@Injectable()
export class UsageReports {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async billing(query: BillingQuery): Promise<BillingReply> {
    const params: unknown[] = [query.month];
    const clientFilter = query.client_id ? ` and client_id = $${params.push(query.client_id)}` : '';
    const rows = await this.db.sql.query<GroupRow & { client_id: string }>(
      `select client_id, ${KIND} as kind, ${SUCCESS} as success, count(*)::int as n, sum(credits)::int as credits
       from credit_ledger_entries where month = $1${clientFilter} group by 1, 2, 3`,
      params,
    );
    const clients: Record<string, BillingClientData> = {};
    for (const row of rows) {
      const data = (clients[row.client_id] ??= { ...emptyCounts(), credits: { simple: 0, browser: 0, total: 0 } });
      addTo(data, row);
      data.credits[row.kind] += row.credits;
      data.credits.total += row.credits;
    }
    if (query.client_id) clients[query.client_id] ??= { ...emptyCounts(), credits: { simple: 0, browser: 0, total: 0 } };
    if (query.by_url) {
      const byUrl = await this.db.sql.query<GroupRow & { client_id: string; domain: string }>(
        `select client_id, coalesce(details->>'domain', 'unknown') as domain, ${KIND} as kind, ${SUCCESS} as success, count(*)::int as n, sum(credits)::int as credits
         from credit_ledger_entries where month = $1${clientFilter} group by 1, 2, 3, 4`,
        params,
      );
      for (const data of Object.values(clients)) data.by_url = {};
      for (const row of byUrl) {
        const domain = (clients[row.client_id].by_url![row.domain] ??= {
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
    const rows = await this.db.sql.query<GroupRow & { exe_ms: number | null }>(
      `select ${KIND} as kind, ${SUCCESS} as success, count(*)::int as n, sum(credits)::int as credits, avg((details->>'execution_ms')::numeric)::float as exe_ms
       from credit_ledger_entries where client_id = $1 and occurred_at >= $2 and occurred_at < $3 group by 1, 2`,
      [query.client_id, range.start, range.end],
    );
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
      const byUrl = await this.db.sql.query<GroupRow & { domain: string }>(
        `select coalesce(details->>'domain', 'unknown') as domain, ${KIND} as kind, ${SUCCESS} as success, count(*)::int as n, sum(credits)::int as credits
         from credit_ledger_entries where client_id = $1 and occurred_at >= $2 and occurred_at < $3 group by 1, 2, 3 order by 1`,
        [query.client_id, range.start, range.end],
      );
      const url: Record<string, ReturnType<typeof metricCell>> = {};
      for (const row of byUrl) addCell((url[row.domain] ??= metricCell()), row);
      out.url = Object.fromEntries(Object.entries(url).map(([k, v]) => [k, finish(v)]));
    }
    if (query.hourly) {
      const buckets = await this.db.sql.query<GroupRow & { day: string; hour: number }>(
        `select to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day, extract(hour from occurred_at at time zone 'UTC')::int as hour,
                ${KIND} as kind, ${SUCCESS} as success, count(*)::int as n, sum(credits)::int as credits
         from credit_ledger_entries where client_id = $1 and occurred_at >= $2 and occurred_at < $3 group by 1, 2, 3, 4`,
        [query.client_id, range.start, range.end],
      );
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
    const where = 'occurred_at >= $1 and occurred_at < $2';
    const params = [range.start, range.end];
    const out: PlatformMetricsReply = { date: { from: query.from, to: query.to } };
    const grouped = async (key: string) =>
      Object.fromEntries(
        (
          await this.db.sql.query<{ key: string; n: number; success: number; credits: number }>(
            `select ${key} as key, count(*)::int as n, count(*) filter (where ${SUCCESS})::int as success, sum(credits)::int as credits from credit_ledger_entries where ${where} group by 1 order by 2 desc, 1`,
            params,
          )
        ).map((r) => [r.key, { requests: r.n, success: r.success, failed: r.n - r.success, credits: r.credits }]),
      );
    for (const metric of query.metrics) {
      if (metric === 'url') out.url = await grouped("coalesce(details->>'domain', 'unknown')");
      if (metric === 'proxy') out.proxy = await grouped("coalesce(details->>'proxy', 'direct')");
      if (metric === 'page_codes') out.page_codes = await grouped("coalesce(details->>'status_code', 'none')");
      if (metric === 'scrape_type') out.scrape_type = await grouped('mode');
      // Every charged call was answered 200 by the API (refusals and infrastructure failures are not charged).
      if (metric === 'api_codes') out.api_codes = await grouped("'200'");
      if (metric === 'exe_time') {
        const [row] = await this.db.sql.query<Record<string, number | null>>(
          `select count(*)::int as count, avg(ms)::float as avg_ms, min(ms)::float as min_ms, max(ms)::float as max_ms,
                  percentile_cont(0.5) within group (order by ms)::float as p50_ms, percentile_cont(0.9) within group (order by ms)::float as p90_ms,
                  percentile_cont(0.95) within group (order by ms)::float as p95_ms, percentile_cont(0.99) within group (order by ms)::float as p99_ms
           from (select (details->>'execution_ms')::numeric as ms from credit_ledger_entries where ${where} and details ? 'execution_ms') t`,
          params,
        );
        const ms = (name: string) => (row[name] === null || row[name] === undefined ? null : Math.round(Number(row[name])));
        out.exe_time = {
          count: ms('count'),
          avg_ms: ms('avg_ms'),
          min_ms: ms('min_ms'),
          max_ms: ms('max_ms'),
          p50_ms: ms('p50_ms'),
          p90_ms: ms('p90_ms'),
          p95_ms: ms('p95_ms'),
          p99_ms: ms('p99_ms'),
        };
      }
    }
    return out;
  }
}

interface GroupRow {
  kind: 'simple' | 'browser';
  success: boolean;
  n: number;
  credits: number;
}

const KIND = "case when mode = 'browser' then 'browser' else 'simple' end";
const SUCCESS = "coalesce((details->>'success')::boolean, false)";

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

function addTo(counts: UsageCounts, row: GroupRow): void {
  counts[`${row.kind}_${row.success ? 'success' : 'failed'}`] += row.n;
  counts[`${row.kind}_total`] += row.n;
  counts.total_requests += row.n;
  counts[row.success ? 'total_success' : 'total_failed'] += row.n;
}

function metricCell() {
  return { requests: 0, success: 0, failed: 0, credits: 0, exe_weighted: 0, exe_n: 0 };
}

function addCell(cell: ReturnType<typeof metricCell>, row: GroupRow & { exe_ms?: number | null }): void {
  cell.requests += row.n;
  cell[row.success ? 'success' : 'failed'] += row.n;
  cell.credits += row.credits;
  if (row.exe_ms !== undefined && row.exe_ms !== null) {
    cell.exe_weighted += row.exe_ms * row.n;
    cell.exe_n += row.n;
  }
}

function finish(cell: ReturnType<typeof metricCell>) {
  const { exe_weighted, exe_n, ...rest } = cell;
  return { ...rest, avg_execution_ms: exe_n > 0 ? Math.round(exe_weighted / exe_n) : null };
}

function rangeOf(range: DayRange): { start: Date; end: Date } {
  return { start: new Date(`${range.from}T00:00:00Z`), end: new Date(new Date(`${range.to}T00:00:00Z`).getTime() + 86_400_000) };
}

function daysOf(range: DayRange): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${range.from}T00:00:00Z`); t <= Date.parse(`${range.to}T00:00:00Z`); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
