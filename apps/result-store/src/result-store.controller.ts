import {
  ClientJobPage,
  GetJobDataQuery,
  GetJobResultQuery,
  ListClientJobsQuery,
  JobListingPage,
  JobResultReply,
  ListJobsQuery,
  Packed,
  SUBJECTS,
  SweepRetentionCommand,
  SweepRetentionReply,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ClientJobListing } from './client-jobs/client-job-listing';
import { JobListing } from './job-listing/job-listing';
import { JobResults } from './job-results/job-results';
import { RetentionSweeper } from './retention/retention-sweeper';

/** Message adapter of result-store: listings and results for the gateway, retention for ops. */
@Controller()
export class ResultStoreController {
  constructor(
    private readonly listing: JobListing,
    private readonly results: JobResults,
    private readonly retention: RetentionSweeper,
    private readonly clientJobs: ClientJobListing,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  @MessagePattern(SUBJECTS.jobs.list)
  async list(@Payload() query: ListJobsQuery): Promise<Packed<JobListingPage>> {
    // A page with inline results may run to megabytes: packed like any large payload.
    return this.bus.pack(await this.listing.page(query));
  }

  @MessagePattern(SUBJECTS.jobs.result)
  result(@Payload() query: GetJobResultQuery): Promise<JobResultReply> {
    return this.results.get(query);
  }

  @MessagePattern(SUBJECTS.jobs.listForClient)
  async listForClient(@Payload() query: ListClientJobsQuery): Promise<Packed<ClientJobPage>> {
    return this.bus.pack(await this.clientJobs.page(query));
  }

  @MessagePattern(SUBJECTS.jobs.data)
  data(@Payload() query: GetJobDataQuery): Promise<JobResultReply> {
    return this.results.getForClient(query);
  }

  @MessagePattern(SUBJECTS.jobs.sweepRetention)
  sweep(@Payload() _command: SweepRetentionCommand): Promise<SweepRetentionReply> {
    return this.retention.sweep();
  }
}
