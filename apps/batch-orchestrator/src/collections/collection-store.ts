import type { CollectionView } from '@lib/contracts';
import { DATABASE, DatabaseConnection, storableJson } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';
import type { CollectionItem } from './collection-items.validator';

interface CollectionRow {
  id: string;
  name: string;
  callback_url: string | null;
  request_count: number;
  created_at: Date | null;
  updated_at: Date | null;
}

const VIEW_COLUMNS = 'id, name, callback_url, request_count, created_at, updated_at';

/** Collections as rows; every read and write is scoped to the owning client. */
@Injectable()
export class CollectionStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async insert(row: {
    id: string;
    clientId: string;
    name: string;
    callbackUrl: string | null;
    items: CollectionItem[];
    at: Date;
  }): Promise<void> {
    await this.db.sql.query(
      'insert into collections (id, client_id, name, callback_url, requests, request_count, created_at, updated_at) values ($1, $2, $3, $4, $5::jsonb, $6, $7, $7)',
      [row.id, row.clientId, row.name, row.callbackUrl, storableJson(row.items), row.items.length, row.at],
    );
  }

  /** Applies the supplied fields only; false when the collection is not this client's. */
  async update(
    clientId: string,
    id: string,
    change: { name?: string; callbackUrl?: string | null; items?: CollectionItem[] },
    at: Date,
  ): Promise<CollectionView | null> {
    const sets = ['updated_at = $3'];
    const params: unknown[] = [id, clientId, at];
    if (change.name !== undefined) sets.push(`name = $${params.push(change.name)}`);
    if (change.callbackUrl !== undefined) sets.push(`callback_url = $${params.push(change.callbackUrl)}`);
    if (change.items !== undefined) {
      sets.push(`requests = $${params.push(storableJson(change.items))}::jsonb`);
      sets.push(`request_count = $${params.push(change.items.length)}`);
    }
    const [row] = await this.db.sql.query<CollectionRow>(
      `update collections set ${sets.join(', ')} where id = $1 and client_id = $2 returning ${VIEW_COLUMNS}`,
      params,
    );
    return row ? viewOf(row) : null;
  }

  async find(clientId: string, id: string): Promise<CollectionView | null> {
    const [row] = await this.db.sql.query<CollectionRow>(`select ${VIEW_COLUMNS} from collections where id = $1 and client_id = $2`, [
      id,
      clientId,
    ]);
    return row ? viewOf(row) : null;
  }

  /** The stored requests and callback of a collection, for a run. */
  async contents(clientId: string, id: string): Promise<{ items: CollectionItem[]; callbackUrl: string | null } | null> {
    const [row] = await this.db.sql.query<{ requests: CollectionItem[]; callback_url: string | null }>(
      'select requests, callback_url from collections where id = $1 and client_id = $2',
      [id, clientId],
    );
    return row ? { items: row.requests, callbackUrl: row.callback_url } : null;
  }

  /** Filters combine with AND; `since` leaves out legacy rows without a creation time. */
  async list(clientId: string, filter: { name?: string; namePrefix?: string; since?: Date }): Promise<CollectionView[]> {
    const where = ['client_id = $1'];
    const params: unknown[] = [clientId];
    if (filter.name !== undefined) where.push(`name = $${params.push(filter.name)}`);
    if (filter.namePrefix !== undefined) where.push(`starts_with(name, $${params.push(filter.namePrefix)})`);
    if (filter.since !== undefined) where.push(`created_at is not null and created_at >= $${params.push(filter.since)}`);
    const rows = await this.db.sql.query<CollectionRow>(
      `select ${VIEW_COLUMNS} from collections where ${where.join(' and ')} order by created_at desc nulls last, id`,
      params,
    );
    return rows.map(viewOf);
  }

  /**
   * Removes the collection with its stored requests (its job data). Runs already started are not
   * affected: they finish, and keep their records, listings and results (jobs copy their request).
   */
  async delete(clientId: string, id: string): Promise<boolean> {
    const deleted = await this.db.sql.query('delete from collections where id = $1 and client_id = $2 returning id', [id, clientId]);
    return deleted.length === 1;
  }
}

function viewOf(row: CollectionRow): CollectionView {
  return {
    id: row.id,
    name: row.name,
    created_at: row.created_at ? Math.floor(new Date(row.created_at).getTime() / 1000) : null,
    updated_at: row.updated_at ? Math.floor(new Date(row.updated_at).getTime() / 1000) : null,
    callback_url: row.callback_url,
    request_count: row.request_count,
  };
}
