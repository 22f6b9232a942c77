import type { LedgerEntryDetails } from '@lib/contracts';
import { DATABASE, type DatabaseConnection } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

/** Charged calls of one kind and outcome, counted and summed. */
export interface LedgerGroup {
  kind: 'simple' | 'browser';
  success: boolean;
  n: number;
  credits: number;
}

/** A key of the entry's `details` JSON: typed, so a renamed detail breaks this file's compile, not a report. */
const detail = (key: keyof LedgerEntryDetails & string) => `details->>'${key}'`;

const KIND = "case when mode = 'browser' then 'browser' else 'simple' end";
const SUCCESS = `coalesce((${detail('success')})::boolean, false)`;
const DOMAIN = `coalesce(${detail('domain')}, 'unknown')`;
const EXECUTION_MS = `(${detail('execution_ms')})::numeric`;

/** What the platform metrics group charged calls by. */
export const PLATFORM_GROUPINGS = {
  url: DOMAIN,
  proxy: `coalesce(${detail('proxy')}, 'direct')`,
  page_codes: `coalesce(${detail('status_code')}, 'none')`,
  scrape_type: 'mode',
  // Every charged call was answered 200 by the API (refusals and infrastructure failures are not charged).
  api_codes: "'200'",
} as const;

export interface TimeRange {
  start: Date;
  end: Date;
}

/**
 * billing-meter's reads of `credit_ledger_entries` (the table its CreditLedger writes through the
 * credit account rules in libs/persistence): the usage reports. SQL through the driver: every
 * report is a grouping over JSON details with aggregates (percentiles among them) that Prisma
 * Client's groupBy cannot express (docs/decisions/0012).
 */
@Injectable()
export class LedgerReportStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** The month's charged calls per client, kind and outcome; with `byDomain`, per target domain too. */
  async monthGroups(month: string, clientId: string | undefined): Promise<Array<LedgerGroup & { clientId: string }>> {
    const params: unknown[] = [month];
    const clientFilter = clientId ? ` and client_id = $${params.push(clientId)}` : '';
    return this.db.sql.query(
      `select client_id "clientId", ${KIND} as kind, ${SUCCESS} as success, count(*)::int as n, sum(credits)::int as credits
       from credit_ledger_entries where month = $1${clientFilter} group by 1, 2, 3`,
      params,
    );
  }

  async monthGroupsByDomain(
    month: string,
    clientId: string | undefined,
  ): Promise<Array<LedgerGroup & { clientId: string; domain: string }>> {
    const params: unknown[] = [month];
    const clientFilter = clientId ? ` and client_id = $${params.push(clientId)}` : '';
    return this.db.sql.query(
      `select client_id "clientId", ${DOMAIN} as domain, ${KIND} as kind, ${SUCCESS} as success, count(*)::int as n, sum(credits)::int as credits
       from credit_ledger_entries where month = $1${clientFilter} group by 1, 2, 3, 4`,
      params,
    );
  }

  /**
   * The month's charged credits of one client by what was charged (a probe of a viability test or
   * of the agent's discover by its LedgerOrigin, anything else by its mode) and by project: the
   * credit summary's figures.
   */
  async monthCreditsByKindAndProject(
    clientId: string,
    month: string,
  ): Promise<Array<{ kind: 'simple' | 'browser' | 'download' | 'viability'; projectId: string | null; credits: number }>> {
    return this.db.sql.query(
      `select case when details ?| array['viability_run_id', 'discover_request_id'] then 'viability'
                   when mode in ('browser', 'download') then mode else 'simple' end as kind,
              project_id "projectId", sum(credits)::int as credits
       from credit_ledger_entries where client_id = $1 and month = $2 group by 1, 2`,
      [clientId, month],
    );
  }

  /** One client's charged calls in the range per kind and outcome, with their mean execution time. */
  async clientGroups(clientId: string, range: TimeRange): Promise<Array<LedgerGroup & { exeMs: number | null }>> {
    return this.db.sql.query(
      `select ${KIND} as kind, ${SUCCESS} as success, count(*)::int as n, sum(credits)::int as credits, avg(${EXECUTION_MS})::float as "exeMs"
       from credit_ledger_entries where client_id = $1 and occurred_at >= $2 and occurred_at < $3 group by 1, 2`,
      [clientId, range.start, range.end],
    );
  }

  async clientGroupsByDomain(clientId: string, range: TimeRange): Promise<Array<LedgerGroup & { domain: string }>> {
    return this.db.sql.query(
      `select ${DOMAIN} as domain, ${KIND} as kind, ${SUCCESS} as success, count(*)::int as n, sum(credits)::int as credits
       from credit_ledger_entries where client_id = $1 and occurred_at >= $2 and occurred_at < $3 group by 1, 2, 3 order by 1`,
      [clientId, range.start, range.end],
    );
  }

  /** Per UTC day (YYYY-MM-DD) and hour. */
  async clientGroupsByHour(clientId: string, range: TimeRange): Promise<Array<LedgerGroup & { day: string; hour: number }>> {
    return this.db.sql.query(
      `select to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day, extract(hour from occurred_at at time zone 'UTC')::int as hour,
              ${KIND} as kind, ${SUCCESS} as success, count(*)::int as n, sum(credits)::int as credits
       from credit_ledger_entries where client_id = $1 and occurred_at >= $2 and occurred_at < $3 group by 1, 2, 3, 4`,
      [clientId, range.start, range.end],
    );
  }

  /** All clients' charged calls in the range, grouped by one of PLATFORM_GROUPINGS, largest first. */
  async platformGroups(
    grouping: keyof typeof PLATFORM_GROUPINGS,
    range: TimeRange,
  ): Promise<Array<{ key: string; n: number; success: number; credits: number }>> {
    return this.db.sql.query(
      `select ${PLATFORM_GROUPINGS[grouping]} as key, count(*)::int as n, count(*) filter (where ${SUCCESS})::int as success, sum(credits)::int as credits
       from credit_ledger_entries where occurred_at >= $1 and occurred_at < $2 group by 1 order by 2 desc, 1`,
      [range.start, range.end],
    );
  }

  /** Execution time statistics of the range's charged calls that recorded one (milliseconds; null when none did). */
  async executionTimes(range: TimeRange): Promise<Record<'count' | 'avg' | 'min' | 'max' | 'p50' | 'p90' | 'p95' | 'p99', number | null>> {
    const [row] = await this.db.sql.query<Record<'count' | 'avg' | 'min' | 'max' | 'p50' | 'p90' | 'p95' | 'p99', number | null>>(
      `select count(*)::int as count, avg(ms)::float as avg, min(ms)::float as min, max(ms)::float as max,
              percentile_cont(0.5) within group (order by ms)::float as p50, percentile_cont(0.9) within group (order by ms)::float as p90,
              percentile_cont(0.95) within group (order by ms)::float as p95, percentile_cont(0.99) within group (order by ms)::float as p99
       from (select ${EXECUTION_MS} as ms from credit_ledger_entries
             where occurred_at >= $1 and occurred_at < $2 and details ? '${'execution_ms' satisfies keyof LedgerEntryDetails}') t`,
      [range.start, range.end],
    );
    return row;
  }
}
