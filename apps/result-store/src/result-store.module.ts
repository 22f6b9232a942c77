import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';
import { ClientJobListing } from './client-jobs/client-job-listing';
import { JobListing } from './job-listing/job-listing';
import { JobResults } from './job-results/job-results';
import { ResultStoreController } from './result-store.controller';
import { RetentionSweeper } from './retention/retention-sweeper';
import { ClientJobStore } from './persistence/client-jobs.store';
import { JobResultStore } from './persistence/job-results.store';
import { ListedJobStore } from './persistence/listed-jobs.store';
import { PageCacheStore } from './persistence/page-cache.store';
import { PageCache } from './page-cache/page-cache';
import { PageVersionStore } from './persistence/page-versions.store';
import { PageVersions } from './page-versions/page-versions';

/** result-store: reads of jobs and their results (a run's listing and the client's across batches, with cursors; results), the page cache, and their retention. */
@Module({
  controllers: [createHealthController('result-store'), ResultStoreController],
  providers: [
    ListedJobStore,
    ClientJobStore,
    JobResultStore,
    JobListing,
    ClientJobListing,
    JobResults,
    RetentionSweeper,
    PageCacheStore,
    PageCache,
    PageVersionStore,
    PageVersions,
  ],
})
export class ResultStoreModule {}
