import type { ViabilityDepth } from '@lib/contracts';
import { DATABASE, DatabaseConnection, storableJson, type ViabilityRun } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';

export interface StoredViabilityRun {
  runId: string;
  clientId: string;
  depth: ViabilityDepth;
  status: 'in_progress' | 'completed';
  totalUrls: number;
  completedUrls: number;
  createdAt: Date;
  completedAt: Date | null;
  /** One per URL in request order once the run is completed; null before (spec 2.15). */
  results: unknown[] | null;
}

/** A URL handed to a worker, with the lease it holds it under. */
/** A run whose last URL has just been stored. */
export interface CompletedViabilityRun {
  runId: string;
  clientId: string;
  totalUrls: number;
  /** URLs per recommended_strategy. */
  strategies: Record<string, number>;
}

export interface ClaimedUrl {
  runId: string;
  clientId: string;
  depth: ViabilityDepth;
  /** The client's monthly credits when the run was created (null = unlimited). */
  monthlyCredits: number | null;
  position: number;
  url: string;
  attempt: number;
}

type RunRow = Pick<ViabilityRun, 'id' | 'clientId' | 'totalUrls' | 'completedUrls' | 'createdAt' | 'completedAt'> & {
  depth: ViabilityDepth;
  status: 'in_progress' | 'completed';
};

const RUN_COLUMNS = (alias: string) =>
  ['id', 'client_id "clientId"', 'depth', 'status', 'total_urls "totalUrls"', 'completed_urls "completedUrls"', 'created_at "createdAt"']
    .concat('completed_at "completedAt"')
    .map((column) => `${alias}.${column}`)
    .join(', ');

/**
 * The `viability_runs` and `viability_urls` tables, owned by viability-analyzer. SQL through the
 * driver: the URL queue leases rows with `for update skip locked`, and a URL's result is written
 * with the run's counter in one transaction (docs/decisions/0012).
 *
 * Viability runs and their URLs in the database, which is also the work queue: a worker claims a
 * pending URL (or one whose lease ran out: its worker died) with `for update skip locked`, so any
 * replica in either runtime can take work, and nothing stays `in_progress` once its worker is gone.
 * A URL's result is written with the run's counter in one transaction, and the run completes with
 * its last URL.
 */
@Injectable()
export class ViabilityRunStore {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async create(run: {
    runId: string;
    clientId: string;
    depth: ViabilityDepth;
    urls: string[];
    monthlyCredits?: number | null;
  }): Promise<StoredViabilityRun> {
    const now = this.clock.now();
    await this.db.sql.transaction(async (tx) => {
      await tx.query(
        "insert into viability_runs (id, client_id, depth, status, total_urls, created_at, monthly_credits) values ($1, $2, $3, 'in_progress', $4, $5, $6)",
        [run.runId, run.clientId, run.depth, run.urls.length, now, run.monthlyCredits ?? null],
      );
      await tx.query(
        "insert into viability_urls (run_id, position, url, state) select $1, position - 1, url, 'pending' from unnest($2::text[]) with ordinality as u(url, position)",
        [run.runId, run.urls],
      );
    });
    return {
      runId: run.runId,
      clientId: run.clientId,
      depth: run.depth,
      status: 'in_progress',
      totalUrls: run.urls.length,
      completedUrls: 0,
      createdAt: now,
      completedAt: null,
      results: null,
    };
  }

  /**
   * The next URL to analyse, leased for `leaseMs`; null when there is none. Oldest run first, but a
   * client already holding `perClientLimit` live leases (across every replica) is passed over, so one
   * client's 100-URL run cannot hold every analysis slot while another client waits.
   */
  async claimNext(leaseMs: number, perClientLimit = Number.MAX_SAFE_INTEGER): Promise<ClaimedUrl | null> {
    const now = this.clock.now();
    const [row] = await this.db.sql.query<{
      run_id: string;
      position: number;
      url: string;
      attempts: number;
      client_id: string;
      depth: ViabilityDepth;
      monthly_credits: number | null;
    }>(
      `with busy as (
         select r.client_id from viability_urls u join viability_runs r on r.id = u.run_id
         where u.state = 'analysing' and u.lease_until >= $1
         group by r.client_id having count(*) >= $3
       ), next as (
         select u.run_id, u.position from viability_urls u join viability_runs r on r.id = u.run_id
         where (u.state = 'pending' or (u.state = 'analysing' and u.lease_until < $1))
           and r.client_id not in (select client_id from busy)
         order by r.created_at, u.run_id, u.position limit 1 for update of u skip locked
       )
       update viability_urls u set state = 'analysing', lease_until = $2, attempts = u.attempts + 1
       from next, viability_runs r
       where u.run_id = next.run_id and u.position = next.position and r.id = u.run_id
       returning u.run_id, u.position, u.url, u.attempts, r.client_id, r.depth, r.monthly_credits`,
      [now, new Date(now.getTime() + leaseMs), perClientLimit],
    );
    return row
      ? {
          runId: row.run_id,
          clientId: row.client_id,
          depth: row.depth,
          monthlyCredits: row.monthly_credits,
          position: row.position,
          url: row.url,
          attempt: row.attempts,
        }
      : null;
  }

  /** The worker still holds the URL: its lease runs `leaseMs` from now. False when it was taken over. */
  async renew(claim: ClaimedUrl, leaseMs: number): Promise<boolean> {
    const until = new Date(this.clock.now().getTime() + leaseMs);
    const rows = await this.db.sql.query(
      "update viability_urls set lease_until = $4 where run_id = $1 and position = $2 and attempts = $3 and state = 'analysing' returning 1",
      [claim.runId, claim.position, claim.attempt, until],
    );
    return rows.length > 0;
  }

  /**
   * Puts every URL under analysis back in the queue. Only for the embedded runtime at start: there
   * this process is the database's only user, so whatever was `analysing` belonged to a process that
   * is gone, and waiting out its lease would only delay the run.
   */
  async requeueAbandoned(): Promise<number> {
    return (
      await this.db.sql.query("update viability_urls set state = 'pending', lease_until = null where state = 'analysing' returning 1")
    ).length;
  }

  /**
   * Stores a URL's result under the attempt that claimed it. A late answer from an attempt whose
   * lease was taken over is ignored (false), so a URL is counted once.
   */
  async complete(claim: ClaimedUrl, result: unknown, onRunCompleted?: (run: CompletedViabilityRun) => void): Promise<boolean> {
    const now = this.clock.now();
    return this.db.sql.transaction(async (tx) => {
      const done = await tx.query(
        "update viability_urls set state = 'done', result = $4::jsonb, completed_at = $5, lease_until = null where run_id = $1 and position = $2 and attempts = $3 and state = 'analysing' returning 1",
        [claim.runId, claim.position, claim.attempt, storableJson(result), now],
      );
      if (done.length === 0) return false;
      const [run] = await tx.query<{ status: string; clientId: string; totalUrls: number }>(
        `update viability_runs set completed_urls = completed_urls + 1,
           status = case when completed_urls + 1 >= total_urls then 'completed' else status end,
           completed_at = case when completed_urls + 1 >= total_urls then $2 else completed_at end
         where id = $1 returning status, client_id "clientId", total_urls "totalUrls"`,
        [claim.runId, now],
      );
      // This URL was the run's last: told once the transaction has committed.
      if (run?.status === 'completed' && onRunCompleted) {
        const counts = await tx.query<{ strategy: string | null; n: number }>(
          "select result->>'recommended_strategy' strategy, count(*)::int n from viability_urls where run_id = $1 group by 1",
          [claim.runId],
        );
        const strategies = Object.fromEntries(counts.map((c) => [c.strategy ?? 'none', c.n]));
        tx.afterCommit(() => onRunCompleted({ runId: claim.runId, clientId: run.clientId, totalUrls: run.totalUrls, strategies }));
      }
      return true;
    });
  }

  /** A client's run; another client's or an unknown id is null. */
  async get(clientId: string, runId: string): Promise<StoredViabilityRun | null> {
    const [run] = await this.db.sql.query<RunRow>(`select ${RUN_COLUMNS('r')} from viability_runs r where r.id = $1 and r.client_id = $2`, [
      runId,
      clientId,
    ]);
    if (!run) return null;
    const results =
      run.status === 'completed'
        ? (
            await this.db.sql.query<{ result: unknown }>('select result from viability_urls where run_id = $1 order by position', [runId])
          ).map((r) => r.result)
        : null;
    return storedRunOf(run, results);
  }

  /** Whether the client has this run (without reading its results). */
  async exists(clientId: string, runId: string): Promise<boolean> {
    return (await this.db.sql.query('select 1 from viability_runs where id = $1 and client_id = $2', [runId, clientId])).length > 0;
  }

  /** A client's runs, newest first, `limit` at a time after the run `afterRunId` (keyset on created_at, id). */
  async list(clientId: string, limit: number, afterRunId?: string): Promise<StoredViabilityRun[]> {
    const rows = afterRunId
      ? await this.db.sql.query<RunRow>(
          `select ${RUN_COLUMNS('r')} from viability_runs r, viability_runs a where a.id = $2 and a.client_id = $1 and r.client_id = $1
             and (r.created_at, r.id) < (a.created_at, a.id) order by r.created_at desc, r.id desc limit $3`,
          [clientId, afterRunId, limit],
        )
      : await this.db.sql.query<RunRow>(
          `select ${RUN_COLUMNS('r')} from viability_runs r where r.client_id = $1 order by r.created_at desc, r.id desc limit $2`,
          [clientId, limit],
        );
    return rows.map((row) => storedRunOf(row, null));
  }

  /** Drops runs created before `before` with their URLs (result retention); returns how many. */
  async prune(before: Date): Promise<number> {
    return (await this.db.sql.query('delete from viability_runs where created_at < $1 returning 1', [before])).length;
  }
}

function storedRunOf(row: RunRow, results: unknown[] | null): StoredViabilityRun {
  return {
    runId: row.id,
    clientId: row.clientId,
    depth: row.depth,
    status: row.status,
    totalUrls: row.totalUrls,
    completedUrls: row.completedUrls,
    createdAt: new Date(row.createdAt),
    completedAt: row.completedAt ? new Date(row.completedAt) : null,
    results,
  };
}
