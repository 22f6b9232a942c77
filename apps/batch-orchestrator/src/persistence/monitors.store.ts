import type { MonitorState, MonitorTickView, StoredSchedule } from '@lib/contracts';
import { DATABASE, type DatabaseConnection, type SqlTransaction, storableJson } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

export interface MonitorRow {
  id: string;
  clientId: string;
  name: string | null;
  state: MonitorState;
  urls: string[];
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

const COLUMNS = `id, client_id "clientId", name, state, urls, schedule, scrape, extract, ignore_rules "ignore", webhook_url "webhookUrl",
  notify, max_concurrency "maxConcurrency", monthly_credits "monthlyCredits", next_tick_at "nextTickAt", last_tick_at "lastTickAt",
  running_tick_id "runningTickId", ticks, created_at "createdAt"`;

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
         max_concurrency, monthly_credits, next_tick_at, created_at)
       values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8::jsonb, $9::jsonb, $10, $11, $12, $13, $14, $15)`,
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
              r.total_requests "totalRequests", r.success_requests "successRequests", r.failed_requests "failedRequests"
       from monitor_ticks t join runs r on r.id = t.run_id
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

  async ticksOf(monitorId: string, limit: number): Promise<MonitorTickView[]> {
    const rows = await this.db.sql.query<{
      run_id: string;
      status: string;
      started_at: Date | string;
      completed_at: Date | string | null;
      total_requests: number;
      credits_charged: number;
      changes: number | null;
    }>(
      `select t.run_id, r.status, t.started_at, r.completed_at, r.total_requests, r.credits_charged, t.changes
       from monitor_ticks t join runs r on r.id = t.run_id where t.monitor_id = $1 order by t.started_at desc limit $2`,
      [monitorId, limit],
    );
    return rows.map((row) => ({
      tick_id: row.run_id,
      status: row.status === 'completed' ? 'completed' : 'in_progress',
      started_at: new Date(row.started_at).toISOString(),
      completed_at: row.completed_at === null ? null : new Date(row.completed_at).toISOString(),
      pages: row.total_requests,
      credits_charged: row.credits_charged,
      changes: row.changes,
    }));
  }
}

function normalised(row: MonitorRow): MonitorRow {
  return {
    ...row,
    nextTickAt: row.nextTickAt === null ? null : new Date(row.nextTickAt),
    lastTickAt: row.lastTickAt === null ? null : new Date(row.lastTickAt),
    createdAt: new Date(row.createdAt),
  };
}
