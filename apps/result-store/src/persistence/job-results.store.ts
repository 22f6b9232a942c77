import { DATABASE, type DatabaseConnection } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';

/**
 * The `job_results` table, owned by result-store: it serves the bodies (with the listing and the
 * result endpoint, joined to their job in ListedJobStore) and prunes them. batch-orchestrator writes
 * each row in the transaction that completes its job (the migration's `finish_job`).
 */
@Injectable()
export class JobResultStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  /** Deletes up to `slice` bodies of jobs that completed before `before`; returns how many went. */
  async pruneCompletedBefore(before: Date, slice: number): Promise<number> {
    const gone = await this.db.sql.query(
      `delete from job_results where job_id in (select job_id from job_results where completed_at < $1 limit ${slice}) returning 1 as gone`,
      [before],
    );
    return gone.length;
  }
}
