import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { GetJobDataQuery, GetJobResultQuery, JobResultReply } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { ListedRunNotFoundError } from '../result-store.errors';
import { listingTime } from '../job-listing/job-listing';
import { ListedJobStore, type StoredJobResult } from '../persistence/listed-jobs.store';

/**
 * One job's stored scrape response (spec 4.5), or why there is none: still running
 * (result_pending), pruned by retention (result_expired), missing inside the window
 * (result_lost), cancelled before it ran (job_cancelled), or no such job in this run
 * (job_id_invalid). Bodies of any size cross the
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
    const job = isUUID(query.job_id) ? await this.jobs.withResult(query.run_id, query.job_id) : null;
    return this.replyFor(job, `No job ${query.job_id} in run ${query.run_id}.`, 're-run the collection to obtain it');
  }

  /** GET /v1/jobs/{job_id}/data: any job of the client (batch or collection run), with the same answers. */
  async getForClient(query: GetJobDataQuery): Promise<JobResultReply> {
    const job = isUUID(query.job_id) ? await this.jobs.withResultOfClient(query.client_id, query.job_id) : null;
    return this.replyFor(job, `No job ${query.job_id}.`, 'append it to a batch again to obtain it');
  }

  private async replyFor(job: StoredJobResult | null, unknown: string, howToRedo: string): Promise<JobResultReply> {
    if (!job) return { found: false, error_code: 'job_id_invalid', message: unknown, completed_at: null, age_hours: null };
    if (job.status === 'processing' || !job.completedAt) {
      return {
        found: false,
        error_code: 'result_pending',
        message: 'The job is still in flight; retry shortly.',
        completed_at: null,
        age_hours: null,
      };
    }
    // A crawl's twin of another page (decision 0035) ended cancelled after it ran: its result says which page it is.
    if (job.status === 'cancelled' && job.body === null) {
      return {
        found: false,
        error_code: 'job_cancelled',
        message: 'The job was cancelled before it ran: it has no result and was not charged.',
        completed_at: listingTime(job.completedAt),
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
        message: `The result was kept ${this.config.resultRetentionHours} h after the job completed and has been pruned; ${howToRedo}.`,
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
