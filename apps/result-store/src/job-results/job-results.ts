import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { GetJobResultQuery, JobResultReply } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { ListedRunNotFoundError } from '../result-store.errors';
import { listingTime } from '../job-listing/job-listing';

/**
 * One job's stored scrape response (spec 4.5), or why there is none: still running
 * (result_pending), pruned by retention (result_expired), missing inside the window
 * (result_lost), or no such job in this run (job_id_invalid). Bodies of any size cross the
 * transport packed (JetStream object store over NATS).
 */
@Injectable()
export class JobResults {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async get(query: GetJobResultQuery): Promise<JobResultReply> {
    const [run] = await this.db.sql.query('select id from runs where id = $1 and collection_id = $2 and client_id = $3', [
      query.run_id,
      query.collection_id,
      query.client_id,
    ]);
    if (!run) throw new ListedRunNotFoundError(`Run ${query.run_id} not found under collection ${query.collection_id}.`);
    const invalid: JobResultReply = {
      found: false,
      error_code: 'job_id_invalid',
      message: `No job ${query.job_id} in run ${query.run_id}.`,
      completed_at: null,
      age_hours: null,
    };
    if (!isUUID(query.job_id)) return invalid;
    const [job] = await this.db.sql.query<{ status: string; completed_at: Date | null; body: string | null }>(
      'select j.status, j.completed_at, r.body from jobs j left join job_results r on r.job_id = j.id where j.id = $1 and j.run_id = $2',
      [query.job_id, query.run_id],
    );
    if (!job) return invalid;
    if (job.status === 'processing' || !job.completed_at) {
      return {
        found: false,
        error_code: 'result_pending',
        message: 'The job is still in flight; retry shortly.',
        completed_at: null,
        age_hours: null,
      };
    }
    if (job.body !== null) return { found: true, result: await this.bus.pack(JSON.parse(job.body)) };
    const ageHours = Math.round(((this.clock.now().getTime() - new Date(job.completed_at).getTime()) / 3_600_000) * 100) / 100;
    const completedAt = listingTime(job.completed_at);
    if (ageHours >= this.config.resultRetentionHours) {
      return {
        found: false,
        error_code: 'result_expired',
        message: `The result was kept ${this.config.resultRetentionHours} h after the job completed and has been pruned; re-run the collection to obtain it.`,
        completed_at: completedAt,
        age_hours: ageHours,
      };
    }
    return {
      found: false,
      error_code: 'result_lost',
      message:
        'The job completed within the retention window but its stored body is unavailable (a service incident); it may qualify for a refund.',
      completed_at: completedAt,
      age_hours: ageHours,
    };
  }
}
