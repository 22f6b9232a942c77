import { createHealthController } from '@lib/runtime';
import { targetGuardProvider } from '@lib/target-guard';
import { Module } from '@nestjs/common';
import { BatchLifecycle } from './batches/batch-lifecycle';
import { BatchesController } from './batches/batches.controller';
import { CollectionItemsValidator } from './collections/collection-items.validator';
import { CollectionsController } from './collections/collections.controller';
import { CrawlRuns } from './crawl-runs/crawl-runs';
import { CrawlRunsController } from './crawl-runs/crawl-runs.controller';
import { JobDispatcher } from './dispatch/job-dispatcher';
import { DispatchRelay } from './dispatch/dispatch-relay';
import { LeaseSweeper } from './dispatch/lease-sweeper';
import { WorkerRoster } from './dispatch/worker-roster';
import { JobClaims } from './job-lifecycle/job-claims';
import { JobCompletion } from './job-lifecycle/job-completion';
import { RunOpsEvents } from './job-lifecycle/run-ops-events';
import { JobQueueGauges } from './dispatch/job-queue-gauges';
import { JobLifecycleController } from './job-lifecycle/job-lifecycle.controller';
import { QuotaNotifier } from './job-lifecycle/quota-notifier';
import { CollectionStore } from './persistence/collections.store';
import { JobStore } from './persistence/jobs.store';
import { ProjectStore } from './persistence/projects.store';
import { ProjectLifecycle } from './projects/project-lifecycle';
import { ProjectsController } from './projects/projects.controller';
import { RunStore } from './persistence/runs.store';
import { RunCancellation } from './runs/run-cancellation';
import { RunLifecycle } from './runs/run-lifecycle';
import { RunLauncher } from './runs/run-launcher';
import { RunViews } from './runs/run-views';
import { RunsController } from './runs/runs.controller';
import { MonitorsController } from './monitors/monitors.controller';
import { Monitors } from './monitors/monitors';
import { MonitorTicker } from './monitors/monitor-ticker';
import { MonitorStore } from './persistence/monitors.store';

/**
 * batch-orchestrator: collections, runs, projects and their batches (runs of kind batch), crawls' runs (kind crawl, pages added by site-discovery), monitors and their ticks (kind monitor), and the life of every job — dispatch over the job queue,
 * claims with attempt fencing, one-transaction completion, leases and their sweeper.
 */
@Module({
  controllers: [
    createHealthController('batch-orchestrator'),
    CollectionsController,
    RunsController,
    JobLifecycleController,
    ProjectsController,
    BatchesController,
    CrawlRunsController,
    MonitorsController,
  ],
  providers: [
    targetGuardProvider,
    CollectionItemsValidator,
    CollectionStore,
    JobStore,
    RunStore,
    ProjectStore,
    RunViews,
    RunCancellation,
    RunLifecycle,
    ProjectLifecycle,
    BatchLifecycle,
    CrawlRuns,
    RunLauncher,
    JobDispatcher,
    JobClaims,
    JobCompletion,
    RunOpsEvents,
    JobQueueGauges,
    DispatchRelay,
    LeaseSweeper,
    WorkerRoster,
    QuotaNotifier,
    MonitorStore,
    Monitors,
    MonitorTicker,
  ],
})
export class BatchOrchestratorModule {}
