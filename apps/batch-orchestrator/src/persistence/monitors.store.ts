import type { MonitorState, MonitorTickView, StoredSchedule } from '@lib/contracts';
import { DATABASE, type DatabaseConnection, type SqlTransaction, storableJson } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

export interface MonitorRow {
  id: string;
  clientId: string;
  name: string | null;
  state: MonitorState;
  urls: string[];
  /** A crawl scope each tick crawls (MonitorCrawlScope); null for a URL monitor. */
  crawl: Record<string, unknown> | null;
  schedule: StoredSchedule;
  scrape: Record<string, unknown>;
  extract: Record<string, unknown> | null;
  ignore: { selectors: string[]; patterns: string[] };
  webhookUrl: string | null;
  notify: 'changes' | 'always';
  maxConcurrency: number;
  monthlyCredits: number | null;
  nextTickAt: Date | null;
  lastTickAt: Date | null;
  runningTickId: string | null;
  ticks: number;
  createdAt: Date;
}

const COLUMNS = `id, client_id "clientId", name, state, urls, crawl, schedule, scrape, extract, ignore_rules "ignore", webhook_url "webhookUrl",
  notify, max_concurrency "maxConcurrency", monthly_credits "monthlyCredits", next_tick_at "nextTickAt", last_tick_at "lastTickAt",
  running_tick_id "runningTickId", ticks, created_at "createdAt"`;
/** The same, of `monitors m` in a join. */
const MONITOR_COLUMNS = COLUMNS.replace(/(^|,\s*)([a-z_]+)/g, '$1m.$2');

/** A completed tick whose webhook is not written yet (the tick reporter's outbox). */
export interface UnreportedTick {
  runId: string;
  monitorId: string;
  clientId: string;
  state: string;
  creditsCharged: number;
  totalRequests: number;
  successRequests: number;
  failedRequests: number;
  timeoutRequests: number;
  /** When its run completed. */
  completedAt: Date | null;
  /** Its monitor watches a crawl scope (false once the monitor is deleted: nothing is removed for it). */
  crawlScope: boolean;
}

/** A crawl-scope monitor's tick whose crawl has not started yet (its start was lost or is being retried). */
export interface TickAwaitingCrawl {
  runId: string;
  monitor: MonitorRow;
}

/**
 * The `monitors` and `monitor_ticks` tables (decision 0038), owned by batch-orchestrator. The tick
 * is taken in SQL: a due monitor is locked (others skip it), its next time moved and its run opened
 * in one transaction, so one due schedule is one tick across any number of replicas.
 */
@Injectable()
export class MonitorStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async insert(tx: SqlTransaction, row: Omit<MonitorRow, 'lastTickAt' | 'runningTickId' | 'ticks'>): Promise<void> {
    await tx.query(
      `insert into monitors (id, client_id, name, state, urls, schedule, scrape, extract, ignore_rules, webhook_url, notify,
         max_concurrency, monthly_credits, next_tick_at, created_at, crawl)
       values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8::jsonb, $9::jsonb, $10, $11, $12, $13, $14, $15, $16::jsonb)`,
      [
        row.id,
        row.clientId,
        row.name,
        row.state,
        storableJson(row.urls),
        storableJson(row.schedule),
        storableJson(row.scrape),
        row.extract === null ? null : storableJson(row.extract),
        storableJson(row.ignore),
        row.webhookUrl,
        row.notify,
        row.maxConcurrency,
        row.monthlyCredits,
        row.nextTickAt,
        row.createdAt,
        row.crawl === null ? null : storableJson(row.crawl),
      ],
    );
  }

  async countOf(tx: SqlTransaction, clientId: string): Promise<number> {
    await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`monitors of ${clientId}`]);
    const [row] = await tx.query<{ n: number }>('select count(*)::int n from monitors where client_id = $1', [clientId]);
    return row.n;
  }

  async find(clientId: string, monitorId: string, tx?: SqlTransaction): Promise<MonitorRow | null> {
    const [row] = await (tx ?? this.db.sql).query<MonitorRow>(`select ${COLUMNS} from monitors where id = $1 and client_id = $2`, [
      monitorId,
      clientId,
    ]);
    return row ? normalised(row) : null;
  }

  async lock(tx: SqlTransaction, clientId: string, monitorId: string): Promise<MonitorRow | null> {
    const [row] = await tx.query<MonitorRow>(`select ${COLUMNS} from monitors where id = $1 and client_id = $2 for update`, [
      monitorId,
      clientId,
    ]);
    return row ? normalised(row) : null;
  }

  async listOf(clientId: string): Promise<MonitorRow[]> {
    const rows = await this.db.sql.query<MonitorRow>(`select ${COLUMNS} from monitors where client_id = $1 order by created_at desc, id`, [
      clientId,
    ]);
    return rows.map(normalised);
  }

  async setState(tx: SqlTransaction, monitorId: string, state: MonitorState, nextTickAt: Date | null): Promise<void> {
    await tx.query('update monitors set state = $2, next_tick_at = $3 where id = $1', [monitorId, state, nextTickAt]);
  }

  async delete(tx: SqlTransaction, monitorId: string): Promise<void> {
    await tx.query('delete from monitors where id = $1', [monitorId]);
  }

  /**
   * The next monitor due at `now` whose last tick has ended, locked for this transaction; others
   * taking ticks skip it. Null when none is due.
   */
  async lockDue(tx: SqlTransaction, now: Date): Promise<MonitorRow | null> {
    const [row] = await tx.query<MonitorRow>(
      `select ${COLUMNS} from monitors
       where state = 'active' and next_tick_at <= $1 and running_tick_id is null
       order by next_tick_at limit 1 for update skip locked`,
      [now],
    );
    return row ? normalised(row) : null;
  }

  /** The monitor's tick has started: its run, its next time, and the tick's row (reported_at null: its outbox). */
  async startTick(tx: SqlTransaction, monitor: MonitorRow, runId: string, now: Date, nextTickAt: Date | null): Promise<void> {
    await tx.query('update monitors set running_tick_id = $2, last_tick_at = $3, next_tick_at = $4, ticks = ticks + 1 where id = $1', [
      monitor.id,
      runId,
      now,
      nextTickAt,
    ]);
    await tx.query('insert into monitor_ticks (run_id, monitor_id, client_id, started_at) values ($1, $2, $3, $4)', [
      runId,
      monitor.id,
      monitor.clientId,
      now,
    ]);
  }

  /** Completed ticks not yet reported, oldest first. */
  async unreported(limit: number): Promise<UnreportedTick[]> {
    return this.db.sql.query<UnreportedTick>(
      `select t.run_id "runId", t.monitor_id "monitorId", t.client_id "clientId", r.state, r.credits_charged "creditsCharged",
              r.total_requests "totalRequests", r.success_requests "successRequests", r.failed_requests "failedRequests",
              r.timeout_requests "timeoutRequests", r.completed_at "completedAt", coalesce(m.crawl is not null, false) "crawlScope"
       from monitor_ticks t join runs r on r.id = t.run_id left join monitors m on m.id = t.monitor_id
       where t.reported_at is null and r.status = 'completed'
       order by t.started_at limit $1`,
      [limit],
    );
  }

  /** The tick is reported (once: false when another replica did it first), and its monitor may tick again. */
  async markReported(tx: SqlTransaction, runId: string, changes: number, now: Date): Promise<boolean> {
    const done = await tx.query<{ monitor_id: string }>(
      'update monitor_ticks set reported_at = $2, changes = $3 where run_id = $1 and reported_at is null returning monitor_id',
      [runId, now, changes],
    );
    if (done.length === 0) return false;
    await tx.query('update monitors set running_tick_id = null where id = $1 and running_tick_id = $2', [done[0].monitor_id, runId]);
    return true;
  }

  /**
   * Crawl-scope ticks started before `before` whose crawl (their run) does not exist yet, with their
   * monitor: the ticker starts them again (a start is idempotent by the tick's id).
   */
  async awaitingCrawl(before: Date, limit: number): Promise<TickAwaitingCrawl[]> {
    const rows = await this.db.sql.query<MonitorRow & { tickRunId: string }>(
      `select t.run_id "tickRunId", ${MONITOR_COLUMNS}
       from monitor_ticks t join monitors m on m.id = t.monitor_id
       where t.reported_at is null and t.started_at < $1 and m.crawl is not null
         and not exists (select 1 from runs r where r.id = t.run_id)
       order by t.started_at limit $2`,
      [before, limit],
    );
    return rows.map(({ tickRunId, ...row }) => ({ runId: tickRunId, monitor: normalised(row) }));
  }

  /** A tick that will have no run (its crawl was refused): reported with no change and why, and its monitor may tick again. */
  async endWithoutRun(tx: SqlTransaction, runId: string, error: string, now: Date): Promise<boolean> {
    if (!(await this.markReported(tx, runId, 0, now))) return false;
    await tx.query('update monitor_ticks set error = $2 where run_id = $1', [runId, error.slice(0, 1000)]);
    return true;
  }

  async ticksOf(monitorId: string, limit: number): Promise<MonitorTickView[]> {
    const rows = await this.db.sql.query<{
      run_id: string;
      status: string;
      started_at: Date | string;
      completed_at: Date | string | null;
      total_requests: number;
      credits_charged: number;
      changes: number | null;
      error: string | null;
      reported_at: Date | string | null;
    }>(
      // A crawl-scope tick has no run until its crawl starts, and none at all when it was refused.
      `select t.run_id, r.status, t.started_at, r.completed_at, coalesce(r.total_requests, 0) total_requests,
              coalesce(r.credits_charged, 0) credits_charged, t.changes, t.error, t.reported_at
       from monitor_ticks t left join runs r on r.id = t.run_id where t.monitor_id = $1 order by t.started_at desc limit $2`,
      [monitorId, limit],
    );
    return rows.map((row) => ({
      tick_id: row.run_id,
      status: row.status === 'completed' || row.error !== null ? 'completed' : 'in_progress',
      started_at: new Date(row.started_at).toISOString(),
      completed_at:
        row.completed_at !== null
          ? new Date(row.completed_at).toISOString()
          : row.error !== null && row.reported_at !== null
            ? new Date(row.reported_at).toISOString()
            : null,
      pages: row.total_requests,
      credits_charged: row.credits_charged,
      changes: row.changes,
      error: row.error,
    }));
  }
}

function normalised(row: MonitorRow): MonitorRow {
  return {
    ...row,
    nextTickAt: row.nextTickAt === null ? null : new Date(row.nextTickAt),
    lastTickAt: row.lastTickAt === null ? null : new Date(row.lastTickAt),
    crawl: row.crawl ?? null,
    createdAt: new Date(row.createdAt),
  };
}
