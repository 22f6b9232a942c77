import type { ChangeStatus, PageChange, PageChangeView } from '@lib/contracts';
import { DATABASE, type DatabaseConnection, type SqlTransaction } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

/** The newest version of a monitored page, its content still compressed. */
export interface LatestVersion {
  id: string;
  contentHash: string;
  content: Buffer;
  firstSeenAt: Date;
}

/** A page's version that is a removal: the page answered 404 or 410. */
export const GONE_HASH = '0'.repeat(64);

interface ChangeRow {
  change_status: ChangeStatus;
  previous_at: Date | string | null;
  diff: string | null;
  json_diff: Array<Record<string, unknown>> | null;
}

/**
 * The `page_versions` and `page_changes` tables (decision 0038), owned by result-store: each
 * distinct version of a monitored page once, and each tick's page that was new, changed or removed.
 */
@Injectable()
export class PageVersionStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    return this.db.sql.transaction(work);
  }

  /**
   * Most pages of most ticks are the same as before: one statement finds the newest version with
   * this hash and moves its last_seen_at, unless the job already recorded a change (its repeat).
   * Returns when that version was first seen, or null when the page is not simply the same.
   */
  async seenUnchanged(monitorId: string, url: string, hash: string, jobId: string, at: Date): Promise<Date | null> {
    const [row] = await this.db.sql.query<{ first_seen_at: Date | string }>(
      `with latest as (select id, content_hash from page_versions where monitor_id = $1 and url = $2 order by id desc limit 1)
       update page_versions v set last_seen_at = greatest(v.last_seen_at, $4)
       from latest where v.id = latest.id and latest.content_hash = $3
         and not exists (select 1 from page_changes where job_id = $5)
       returning v.first_seen_at`,
      [monitorId, url, hash, at, jobId],
    );
    return row ? new Date(row.first_seen_at) : null;
  }

  /** The comparison a job's page already had (a worker's repeat), or null. */
  async changeOfJob(tx: SqlTransaction, jobId: string): Promise<PageChange | null> {
    const [row] = await tx.query<ChangeRow>('select change_status, previous_at, diff, json_diff from page_changes where job_id = $1', [
      jobId,
    ]);
    return row ? changeOf(row) : null;
  }

  /**
   * The page's newest version, under a lock on the page (monitor and URL) for the rest of the
   * transaction: two attempts of one job never both insert a version.
   */
  async latestLocked(tx: SqlTransaction, monitorId: string, url: string): Promise<LatestVersion | null> {
    await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`${monitorId} ${url}`]);
    const [row] = await tx.query<{ id: string; content_hash: string; content: Uint8Array; first_seen_at: Date | string }>(
      'select id::text, content_hash, content, first_seen_at from page_versions where monitor_id = $1 and url = $2 order by id desc limit 1',
      [monitorId, url],
    );
    return row
      ? { id: row.id, contentHash: row.content_hash, content: Buffer.from(row.content), firstSeenAt: new Date(row.first_seen_at) }
      : null;
  }

  async seenAgain(tx: SqlTransaction, versionId: string, at: Date): Promise<void> {
    await tx.query('update page_versions set last_seen_at = greatest(last_seen_at, $2) where id = $1', [versionId, at]);
  }

  /** A new version and its change; versions past `keep` per page are dropped, oldest first. */
  async insertChange(
    tx: SqlTransaction,
    version: {
      clientId: string;
      monitorId: string;
      url: string;
      hash: string;
      content: Buffer;
      seenAt: Date;
      jobId: string;
      runId: string;
    },
    change: PageChange,
    keep: number,
  ): Promise<void> {
    await tx.query(
      `insert into page_versions (client_id, monitor_id, url, content_hash, content, first_seen_at, last_seen_at, job_id)
       values ($1, $2, $3, $4, $5, $6, $6, $7)`,
      [version.clientId, version.monitorId, version.url, version.hash, version.content, version.seenAt, version.jobId],
    );
    await tx.query(
      `insert into page_changes (job_id, run_id, client_id, monitor_id, url, change_status, previous_at, detected_at, diff, json_diff)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb)`,
      [
        version.jobId,
        version.runId,
        version.clientId,
        version.monitorId,
        version.url,
        change.change_status,
        change.previous_at,
        version.seenAt,
        change.diff,
        change.json_diff === null ? null : JSON.stringify(change.json_diff),
      ],
    );
    await tx.query(
      `delete from page_versions where monitor_id = $1 and url = $2 and id < (
         select id from page_versions where monitor_id = $1 and url = $2 order by id desc offset $3 limit 1)`,
      [version.monitorId, version.url, keep - 1],
    );
  }

  async changesOfMonitor(clientId: string, monitorId: string, limit: number): Promise<PageChangeView[]> {
    return viewsOf(
      await this.db.sql.query(
        `select url, change_status, run_id, job_id, detected_at, previous_at from page_changes
         where client_id = $1 and monitor_id = $2 order by detected_at desc, job_id limit $3`,
        [clientId, monitorId, limit],
      ),
    );
  }

  async changesOfRun(runId: string): Promise<PageChangeView[]> {
    return viewsOf(
      await this.db.sql.query(
        'select url, change_status, run_id, job_id, detected_at, previous_at from page_changes where run_id = $1 order by url',
        [runId],
      ),
    );
  }
}

function changeOf(row: ChangeRow): PageChange {
  return {
    change_status: row.change_status,
    previous_at: row.previous_at === null ? null : new Date(row.previous_at).toISOString(),
    diff: row.diff,
    json_diff: row.json_diff,
  };
}

function viewsOf(rows: Array<Record<string, unknown>>): PageChangeView[] {
  return rows.map((row) => ({
    url: row.url as string,
    change_status: row.change_status as ChangeStatus,
    tick_id: row.run_id as string,
    job_id: row.job_id as string,
    detected_at: new Date(row.detected_at as string).toISOString(),
    previous_at: row.previous_at === null ? null : new Date(row.previous_at as string).toISOString(),
  }));
}
