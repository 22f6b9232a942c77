import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { GetJobResultQuery, JobResultReply } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { ListedRunNotFoundError } from '../result-store.errors';
import { listingTime } from '../job-listing/job-listing';
import { ListedJobStore } from '../persistence/listed-jobs.store';

/**
 * One job's stored scrape response (spec 4.5), or why there is none: still running
 * (result_pending), pruned by retention (result_expired), missing inside the window
 * (result_lost), or no such job in this run (job_id_invalid). Bodies of any size cross the
 * transport packed (JetStream object store over NATS).
 */
@Injectable()
export class JobResults {
  constructor(
    private readonly jobs: ListedJobStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async get(query: GetJobResultQuery): Promise<JobResultReply> {
    const run = { runId: query.run_id, collectionId: query.collection_id, clientId: query.client_id };
    if (!(await this.jobs.runExists(run)))
      throw new ListedRunNotFoundError(`Run ${query.run_id} not found under collection ${query.collection_id}.`);
    const invalid: JobResultReply = {
      found: false,
      error_code: 'job_id_invalid',
      message: `No job ${query.job_id} in run ${query.run_id}.`,
      completed_at: null,
      age_hours: null,
    };
    if (!isUUID(query.job_id)) return invalid;
    const job = await this.jobs.withResult(query.run_id, query.job_id);
    if (!job) return invalid;
    if (job.status === 'processing' || !job.completedAt) {
      return {
        found: false,
        error_code: 'result_pending',
        message: 'The job is still in flight; retry shortly.',
        completed_at: null,
        age_hours: null,
      };
    }
    if (job.body !== null) return { found: true, result: await this.bus.pack(JSON.parse(job.body)) };
    const ageHours = Math.round(((this.clock.now().getTime() - new Date(job.completedAt).getTime()) / 3_600_000) * 100) / 100;
    const completedAt = listingTime(job.completedAt);
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
