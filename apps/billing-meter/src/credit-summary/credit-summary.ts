import { CreditSummary, CreditSummaryQuery } from '@lib/contracts';
import { creditMonthResetOf, creditUsageOf, DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { LedgerReportStore } from '../persistence/ledger-reports.store';

/**
 * GET /v1/credits/summary: the month's credits from the ledger — the rows /v1/sync/billing sums —
 * so `used` equals its credits.total and the kinds and projects add up to `used` exactly. `held`
 * is every live hold (jobs and probes in flight, sync requests, gateway leases); the gateway
 * takes its own unused lease credits off it, as it does for X-Quota-Used.
 */
@Injectable()
export class CreditSummaryReport {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly ledger: LedgerReportStore,
  ) {}

  async summary(query: CreditSummaryQuery): Promise<CreditSummary> {
    const now = this.clock.now();
    const usage = await creditUsageOf(this.db.sql, query.client_id, now);
    const groups = await this.ledger.monthCreditsByKindAndProject(query.client_id, usage.month);
    const by_kind = { simple: 0, browser: 0, download: 0, viability: 0 };
    const byProject = new Map<string, number>();
    let used = 0;
    let outside = 0;
    for (const group of groups) {
      by_kind[group.kind] += group.credits;
      used += group.credits;
      if (group.projectId) byProject.set(group.projectId, (byProject.get(group.projectId) ?? 0) + group.credits);
      else outside += group.credits;
    }
    return {
      month: usage.month,
      plan: query.plan,
      limit: query.monthly_credits,
      used,
      held: usage.held,
      remaining: query.monthly_credits === null ? null : Math.max(0, query.monthly_credits - used - usage.held),
      resets_at: creditMonthResetOf(now),
      by_kind,
      by_project: [...byProject.entries()].map(([project_id, credits]) => ({ project_id, credits })).sort((a, b) => b.credits - a.credits),
      outside_projects: outside,
    };
  }
}
