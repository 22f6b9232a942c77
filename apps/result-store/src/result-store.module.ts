import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';
import { JobListing } from './job-listing/job-listing';
import { JobResults } from './job-results/job-results';
import { ResultStoreController } from './result-store.controller';
import { RetentionSweeper } from './retention/retention-sweeper';
import { JobResultStore } from './persistence/job-results.store';
import { ListedJobStore } from './persistence/listed-jobs.store';

/** result-store: reads of jobs and their results (listing with cursors, result endpoint) and their retention. */
@Module({
  controllers: [createHealthController('result-store'), ResultStoreController],
  providers: [ListedJobStore, JobResultStore, JobListing, JobResults, RetentionSweeper],
})
export class ResultStoreModule {}
