import type { SqlExecutor } from './database-connection';

export const QUOTA_THRESHOLDS_PERCENT = [80, 100] as const;
export type QuotaThresholdPercent = (typeof QUOTA_THRESHOLDS_PERCENT)[number];

/**
 * The thresholds of the monthly limit that `used` has reached and nobody had recorded yet this
 * month: recorded now (one insert, `on conflict do nothing`), so of all the writers that see a
 * crossing — billing-meter's replicas for sync scrapes, batch-orchestrator's for batch jobs —
 * exactly one gets each threshold back and announces it.
 */
export async function recordQuotaThresholdsReached(
  sql: Pick<SqlExecutor, 'query'>,
  input: { clientId: string; month: string; used: number; limit: number | null; at: Date },
): Promise<QuotaThresholdPercent[]> {
  if (input.limit === null || input.limit <= 0) return [];
  const reached = QUOTA_THRESHOLDS_PERCENT.filter((percent) => input.used * 100 >= input.limit! * percent);
  if (reached.length === 0) return [];
  const rows = await sql.query<{ threshold_percent: number }>(
    `insert into quota_threshold_notices (client_id, month, threshold_percent, used, credit_limit, reached_at)
     select $1, $2, t, $3, $4, $5 from unnest($6::int[]) t
     on conflict do nothing returning threshold_percent`,
    [input.clientId, input.month, input.used, input.limit, input.at, reached],
  );
  return rows.map((r) => r.threshold_percent as QuotaThresholdPercent).sort((a, b) => a - b);
}
