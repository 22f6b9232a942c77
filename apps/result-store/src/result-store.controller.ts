import {
  ClientJobPage,
  GetJobDataQuery,
  GetJobResultQuery,
  ListClientJobsQuery,
  JobListingPage,
  JobResultReply,
  ListJobsQuery,
  Packed,
  MonitorChangesQuery,
  MonitorTickReference,
  PageCacheConfirmCommand,
  RecordPageVersionCommand,
  RecordUnseenPagesCommand,
  PageCacheLookupQuery,
  PageCacheStoreCommand,
  ReplyOf,
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
import { PageCache } from './page-cache/page-cache';
import { PageVersions } from './page-versions/page-versions';

/** Message adapter of result-store: listings, results and the page cache for the gateway, page versions for monitors, retention for ops. */
@Controller()
export class ResultStoreController {
  constructor(
    private readonly listing: JobListing,
    private readonly results: JobResults,
    private readonly retention: RetentionSweeper,
    private readonly clientJobs: ClientJobListing,
    private readonly pageCache: PageCache,
    private readonly versions: PageVersions,
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

  @MessagePattern(SUBJECTS.pageCache.lookup)
  lookUpPage(@Payload() query: PageCacheLookupQuery): Promise<ReplyOf<typeof SUBJECTS.pageCache.lookup>> {
    return this.pageCache.lookup(query);
  }

  @MessagePattern(SUBJECTS.pageCache.store)
  keepPage(@Payload() command: PageCacheStoreCommand): Promise<ReplyOf<typeof SUBJECTS.pageCache.store>> {
    return this.pageCache.keep(command);
  }

  @MessagePattern(SUBJECTS.pageCache.confirm)
  confirmPage(@Payload() command: PageCacheConfirmCommand): Promise<ReplyOf<typeof SUBJECTS.pageCache.confirm>> {
    return this.pageCache.confirm(command);
  }

  @MessagePattern(SUBJECTS.pageVersions.record)
  async recordVersion(@Payload() command: RecordPageVersionCommand): Promise<ReplyOf<typeof SUBJECTS.pageVersions.record>> {
    return { change: await this.versions.record(command) };
  }

  @MessagePattern(SUBJECTS.pageVersions.changes)
  async changes(@Payload() query: MonitorChangesQuery): Promise<ReplyOf<typeof SUBJECTS.pageVersions.changes>> {
    return { changes: await this.versions.changes(query) };
  }

  @MessagePattern(SUBJECTS.pageVersions.recordUnseen)
  recordUnseen(@Payload() command: RecordUnseenPagesCommand): Promise<ReplyOf<typeof SUBJECTS.pageVersions.recordUnseen>> {
    return this.versions.recordUnseen(command);
  }

  @MessagePattern(SUBJECTS.pageVersions.changesOfTick)
  async changesOfTick(@Payload() query: MonitorTickReference): Promise<ReplyOf<typeof SUBJECTS.pageVersions.changesOfTick>> {
    return { changes: await this.versions.changesOfTick(query.run_id) };
  }

  @MessagePattern(SUBJECTS.jobs.sweepRetention)
  sweep(@Payload() _command: SweepRetentionCommand): Promise<SweepRetentionReply> {
    return this.retention.sweep();
  }
}
