import type { DatabaseConnection } from '@lib/persistence';
import { randomUUID } from 'node:crypto';

/** A collection run of `jobs` waiting simple jobs for `clientId`, written straight to the tables (dispatch and relay specs). */
export async function insertRunWithJobs(db: DatabaseConnection, clientId: string, maxConcurrency: number, jobs: number): Promise<string[]> {
  const runId = randomUUID();
  await db.sql.query(
    "insert into runs (id, collection_id, client_id, status, total_requests, max_concurrency, created_at) values ($1, $2, $3, 'in_progress', $4, $5, now())",
    [runId, randomUUID(), clientId, jobs, maxConcurrency],
  );
  const ids: string[] = [];
  for (let i = 0; i < jobs; i += 1) {
    const id = randomUUID();
    ids.push(id);
    await db.sql.query(
      "insert into jobs (id, run_id, collection_id, client_id, position, url, request, mode, queued_at) values ($1, $2, $3, $4, $5, 'https://example.com/', '{}', 'simple', now())",
      [id, runId, randomUUID(), clientId, i],
    );
  }
  return ids;
}
