import type { ChangeStatus, PageChange, PageChangeView } from '@lib/contracts';
import { DATABASE, type DatabaseConnection } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';
import type { PageHead } from '../page-versions/tick-heads';

/** The newest version of a monitored page, its content still compressed. */
export interface LatestVersion {
  id: string;
  contentHash: string;
  content: Buffer;
  firstSeenAt: Date;
}

/** A page's version that is a removal: the page answered 404 or 410. */
export const GONE_HASH = '0'.repeat(64);

/** A page a tick saw, asked whether it is simply its newest version again. */
export interface UnchangedCandidate {
  monitorId: string;
  url: string;
  hash: string;
  jobId: string;
  /** The tick (its run) that saw it. */
  runId: string;
  at: Date;
}

/** A version seen again by a tick (its run), at its time. */
export interface Sighting {
  versionId: string;
  at: Date;
  runId: string;
}

type LockedPageRow = Partial<ChangeRow> & {
  id: string | null;
  content_hash: string | null;
  content: Uint8Array | null;
  first_seen_at: Date | string | null;
};

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

  /**
   * Most pages of most ticks are the same as before: one statement, for every page asked at once,
   * finds each page's newest version and moves its last_seen_at when it has this hash, unless the
   * page's job already recorded a change (its repeat). Answers, per page in order, when that version
   * was first seen, or null when the page is not simply the same (a page asked twice in one
   * statement is answered once; the other is null and is decided the slow way).
   */
  async seenUnchanged(pages: ReadonlyArray<UnchangedCandidate>): Promise<Array<Date | null>> {
    const rows = await this.db.sql.query<{ n: string | number; first_seen_at: Date | string }>(
      `with input as (
         select * from unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::timestamptz[], $6::uuid[]) with ordinality as i(monitor_id, url, hash, job_id, at, run_id, n)),
       latest as (
         select i.n, v.id, v.content_hash from input i
         cross join lateral (select id, content_hash from page_versions p where p.monitor_id = i.monitor_id and p.url = i.url order by id desc limit 1) v)
       update page_versions v set last_seen_at = greatest(v.last_seen_at, i.at), last_run_id = i.run_id
       from latest l join input i on i.n = l.n
       where v.id = l.id and l.content_hash = i.hash
         and not exists (select 1 from page_changes c where c.job_id = i.job_id)
       returning i.n, v.first_seen_at`,
      [
        pages.map((p) => p.monitorId),
        pages.map((p) => p.url),
        pages.map((p) => p.hash),
        pages.map((p) => p.jobId),
        pages.map((p) => p.at),
        pages.map((p) => p.runId),
      ],
    );
    const answers: Array<Date | null> = pages.map(() => null);
    for (const row of rows) answers[Number(row.n) - 1] = new Date(row.first_seen_at);
    return answers;
  }

  /** Every page of a monitor with its newest version (TickHeads). */
  async headsOf(monitorId: string): Promise<Array<PageHead & { url: string }>> {
    const rows = await this.db.sql.query<{ url: string; id: string; content_hash: string; first_seen_at: Date | string; job_id: string }>(
      `select distinct on (url) url, id::text id, content_hash, first_seen_at, job_id from page_versions
       where monitor_id = $1 order by url, page_versions.id desc`,
      [monitorId],
    );
    return rows.map((row) => ({
      url: row.url,
      id: row.id,
      hash: row.content_hash,
      firstSeenAt: new Date(row.first_seen_at),
      jobId: row.job_id,
    }));
  }

  /** Versions seen again, each at its time by its tick (moving last_seen_at only ever forward). */
  async seenAgainAll(sightings: ReadonlyArray<Sighting>): Promise<void> {
    await this.db.sql.query(
      `update page_versions v set last_seen_at = greatest(v.last_seen_at, s.at), last_run_id = s.run_id
       from (select distinct on (id) id, at, run_id from unnest($1::bigint[], $2::timestamptz[], $3::uuid[]) as i(id, at, run_id)
             order by id, at desc) s
       where v.id = s.id`,
      [sightings.map((s) => s.versionId), sightings.map((s) => s.at), sightings.map((s) => s.runId)],
    );
  }

  /** The comparison a job's page already had (a worker's repeat), and the page's newest version. */
  async latestOf(jobId: string, monitorId: string, url: string): Promise<{ recorded: PageChange | null; latest: LatestVersion | null }> {
    const [row] = await this.db.sql.query<LockedPageRow>(
      `select c.change_status, c.previous_at, c.diff, c.json_diff, v.id::text id, v.content_hash, v.content, v.first_seen_at
       from (select 1) one
       left join page_changes c on c.job_id = $1::uuid
       left join lateral (select id, content_hash, content, first_seen_at from page_versions where monitor_id = $2::uuid and url = $3::text order by id desc limit 1) v on true`,
      [jobId, monitorId, url],
    );
    const recorded = row?.change_status ? changeOf(row as ChangeRow) : null;
    const latest =
      row?.id && row.content_hash && row.content && row.first_seen_at
        ? { id: row.id, contentHash: row.content_hash, content: Buffer.from(row.content), firstSeenAt: new Date(row.first_seen_at) }
        : null;
    return { recorded, latest };
  }

  /** The page was seen again as its version `versionId` by a tick (moving last_seen_at only ever forward). */
  async seenAgain(sighting: Sighting): Promise<void> {
    await this.db.sql.query('update page_versions set last_seen_at = greatest(last_seen_at, $2), last_run_id = $3 where id = $1', [
      sighting.versionId,
      sighting.at,
      sighting.runId,
    ]);
  }

  /**
   * Every page of the monitor whose newest version is not a removal and was not seen by this tick:
   * removed, as a version and a change each, in one statement; how many. Each change's job id is
   * made from the tick and the URL (no job fetched it), so asking again removes nothing twice: a
   * page removed is a removal now, and the successor index refuses a second one.
   */
  async removeUnseen(command: { clientId: string; monitorId: string; runId: string; at: Date }): Promise<number> {
    const [row] = await this.db.sql.query<{ n: number }>(
      `with heads as (
         select distinct on (url) id, url, content_hash, first_seen_at, last_run_id from page_versions
         where monitor_id = $2::uuid order by url, page_versions.id desc),
       unseen as (
         select id, url, first_seen_at, md5($3::text || ' ' || url)::uuid job_id from heads
         where content_hash <> $5::char(64) and last_run_id is distinct from $3::uuid),
       version as (
         insert into page_versions (client_id, monitor_id, url, content_hash, content, first_seen_at, last_seen_at, job_id, previous_id, last_run_id)
         select $1::text, $2::uuid, url, $5::char(64), ''::bytea, $4::timestamptz, $4::timestamptz, job_id, id, $3::uuid from unseen
         on conflict do nothing returning url),
       change as (
         insert into page_changes (job_id, run_id, client_id, monitor_id, url, change_status, previous_at, detected_at, diff, json_diff, unseen)
         select u.job_id, $3::uuid, $1::text, $2::uuid, u.url, 'removed', u.first_seen_at, $4::timestamptz, null, null, true
         from unseen u join version v on v.url = u.url
         on conflict do nothing returning 1)
       select count(*)::int n from change`,
      [command.clientId, command.monitorId, command.runId, command.at, GONE_HASH],
    );
    return row.n;
  }

  /**
   * A new version succeeding `previousId` (null for a page's first), its change, and the page's
   * versions past `keep` dropped, oldest first: one statement, no lock. False when another writer
   * succeeded that version first (the successor index refused this one): compare again. A job's
   * second change is refused by page_changes' key and fails the whole statement.
   */
  async insertSuccessor(
    version: {
      clientId: string;
      monitorId: string;
      url: string;
      hash: string;
      content: Buffer;
      seenAt: Date;
      jobId: string;
      runId: string;
      previousId: string | null;
    },
    change: PageChange,
    keep: number,
  ): Promise<boolean> {
    // The statement's snapshot does not see the version it inserts: keep − 1 of those before it stay.
    const [row] = await this.db.sql.query<{ written: boolean }>(
      `with version as (
         insert into page_versions (client_id, monitor_id, url, content_hash, content, first_seen_at, last_seen_at, job_id, previous_id, last_run_id)
         values ($1, $2, $3, $4, $5, $6, $6, $7, $14, $8) on conflict do nothing returning id),
       change as (
         insert into page_changes (job_id, run_id, client_id, monitor_id, url, change_status, previous_at, detected_at, diff, json_diff)
         select $7, $8, $1, $2, $3, $9, $10, $6, $11, $12::jsonb from version),
       dropped as (
         delete from page_versions where exists (select 1 from version) and monitor_id = $2 and url = $3 and id < (
           select id from page_versions where monitor_id = $2 and url = $3 order by id desc offset $13 limit 1))
       select exists (select 1 from version) written`,
      [
        version.clientId,
        version.monitorId,
        version.url,
        version.hash,
        version.content,
        version.seenAt,
        version.jobId,
        version.runId,
        change.change_status,
        change.previous_at,
        change.diff,
        change.json_diff === null ? null : JSON.stringify(change.json_diff),
        keep - 2,
        version.previousId ?? '0',
      ],
    );
    return row.written;
  }

  /**
   * Versions of monitored pages from before `before`: a version superseded before then (its page
   * has a newer version first seen before it), and a page's newest version not seen since then (a
   * deleted monitor's page, a URL taken out of one). At most `limit`; how many went.
   */
  async pruneVersionsBefore(before: Date, limit: number): Promise<number> {
    const rows = await this.db.sql.query(
      `delete from page_versions where id in (
         select v.id from page_versions v
         where v.first_seen_at < $1
           and (exists (select 1 from page_versions n where n.monitor_id = v.monitor_id and n.url = v.url and n.id > v.id and n.first_seen_at < $1)
             or (v.last_seen_at < $1 and not exists (select 1 from page_versions n where n.monitor_id = v.monitor_id and n.url = v.url and n.id > v.id)))
         limit $2)
       returning id`,
      [before, limit],
    );
    return rows.length;
  }

  /** Changes detected before `before`, at most `limit`; how many went. */
  async pruneChangesBefore(before: Date, limit: number): Promise<number> {
    const rows = await this.db.sql.query(
      'delete from page_changes where job_id in (select job_id from page_changes where detected_at < $1 limit $2) returning job_id',
      [before, limit],
    );
    return rows.length;
  }

  async changesOfMonitor(clientId: string, monitorId: string, limit: number): Promise<PageChangeView[]> {
    return viewsOf(
      await this.db.sql.query(
        `select url, change_status, run_id, job_id, detected_at, previous_at, unseen from page_changes
         where client_id = $1 and monitor_id = $2 order by detected_at desc, job_id limit $3`,
        [clientId, monitorId, limit],
      ),
    );
  }

  async changesOfRun(runId: string): Promise<PageChangeView[]> {
    return viewsOf(
      await this.db.sql.query(
        'select url, change_status, run_id, job_id, detected_at, previous_at, unseen from page_changes where run_id = $1 order by url',
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
    job_id: row.unseen === true ? null : (row.job_id as string),
    detected_at: new Date(row.detected_at as string).toISOString(),
    previous_at: row.previous_at === null ? null : new Date(row.previous_at as string).toISOString(),
  }));
}
