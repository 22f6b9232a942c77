import type { CollectionView } from '@lib/contracts';
import { type Collection, DATABASE, DatabaseConnection, type SqlTransaction, storableJson } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';
import type { CollectionItem } from '../collections/collection-items.validator';
import { unixSecondsOf } from './unix-seconds';

type CollectionRow = Pick<Collection, 'id' | 'name' | 'callbackUrl' | 'requestCount' | 'createdAt' | 'updatedAt'>;

const VIEW_COLUMNS = 'id, name, callback_url "callbackUrl", request_count "requestCount", created_at "createdAt", updated_at "updatedAt"';

/**
 * The `collections` table, owned by batch-orchestrator; every read and write is scoped to the
 * owning client. SQL through the driver like the other stores of this context: the run launcher
 * locks a collection inside the transaction that creates the run's jobs (docs/decisions/0012).
 */
@Injectable()
export class CollectionStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** What a run copies, with the row held (for share) until `tx` ends, so an edit cannot interleave. */
  async lockForRun(tx: SqlTransaction, clientId: string, id: string): Promise<Pick<Collection, 'requestCount' | 'callbackUrl'> | null> {
    const [row] = await tx.query<Pick<Collection, 'requestCount' | 'callbackUrl'>>(
      'select request_count "requestCount", callback_url "callbackUrl" from collections where id = $1 and client_id = $2 for share',
      [id, clientId],
    );
    return row ?? null;
  }

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
    const [row] = await this.db.sql.query<{ requests: CollectionItem[]; callbackUrl: string | null }>(
      'select requests, callback_url "callbackUrl" from collections where id = $1 and client_id = $2',
      [id, clientId],
    );
    return row ? { items: row.requests, callbackUrl: row.callbackUrl } : null;
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
    created_at: row.createdAt ? unixSecondsOf(row.createdAt) : null,
    updated_at: row.updatedAt ? unixSecondsOf(row.updatedAt) : null,
    callback_url: row.callbackUrl,
    request_count: row.requestCount,
  };
}
