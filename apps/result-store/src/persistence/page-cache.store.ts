import type { PageValidators } from '@lib/contracts';
import { DATABASE, type DatabaseConnection } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

/** One row of `page_cache`, its body still compressed. */
export interface PageCacheRow {
  body: Buffer;
  validators: PageValidators | null;
  fetchedAt: Date;
  validatedAt: Date;
}

interface RawRow {
  body: Uint8Array;
  etag: string | null;
  last_modified: string | null;
  fetched_at: Date | string;
  validated_at: Date | string;
}

/** The `page_cache` table (decision 0037), owned by result-store: one entry per client and request key. */
@Injectable()
export class PageCacheStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async find(clientId: string, key: string): Promise<PageCacheRow | null> {
    const rows = await this.db.sql.query<RawRow>(
      'select body, etag, last_modified, fetched_at, validated_at from page_cache where client_id = $1 and cache_key = $2',
      [clientId, key],
    );
    return rows[0] ? rowOf(rows[0]) : null;
  }

  /** The entry of this key becomes this result: the last usable answer is the one served. */
  async put(entry: {
    clientId: string;
    key: string;
    url: string;
    body: Buffer;
    bodyBytes: number;
    validators: PageValidators | null;
    fetchedAt: Date;
  }): Promise<void> {
    await this.db.sql.query(
      `insert into page_cache (client_id, cache_key, url, body, body_bytes, etag, last_modified, fetched_at, validated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       on conflict (client_id, cache_key) do update set
         url = excluded.url, body = excluded.body, body_bytes = excluded.body_bytes, etag = excluded.etag,
         last_modified = excluded.last_modified, fetched_at = excluded.fetched_at, validated_at = excluded.validated_at
       -- a slower answer fetched earlier never replaces a newer one
       where page_cache.fetched_at <= excluded.fetched_at`,
      [
        entry.clientId,
        entry.key,
        entry.url,
        entry.body,
        entry.bodyBytes,
        entry.validators?.etag ?? null,
        entry.validators?.last_modified ?? null,
        entry.fetchedAt,
      ],
    );
  }

  /** The origin confirmed the entry (304): valid from `at`. Returns the entry, or null when it is gone. */
  async confirm(clientId: string, key: string, at: Date): Promise<PageCacheRow | null> {
    const rows = await this.db.sql.query<RawRow>(
      `update page_cache set validated_at = greatest(validated_at, $3) where client_id = $1 and cache_key = $2
       returning body, etag, last_modified, fetched_at, validated_at`,
      [clientId, key, at],
    );
    return rows[0] ? rowOf(rows[0]) : null;
  }

  /** Deletes up to `slice` entries not confirmed since `before`; returns how many went. */
  async pruneValidatedBefore(before: Date, slice: number): Promise<number> {
    const gone = await this.db.sql.query(
      `delete from page_cache where ctid in (select ctid from page_cache where validated_at < $1 limit ${slice}) returning 1 as gone`,
      [before],
    );
    return gone.length;
  }
}

function rowOf(row: RawRow): PageCacheRow {
  return {
    body: Buffer.from(row.body),
    validators: row.etag || row.last_modified ? { etag: row.etag, last_modified: row.last_modified } : null,
    fetchedAt: new Date(row.fetched_at),
    validatedAt: new Date(row.validated_at),
  };
}
