import { platformMetrics } from '@lib/metrics';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { JobStore } from '../persistence/jobs.store';

/**
 * The unfinished jobs by phase (waiting for dispatch, dispatched, running), the queue depth (jobs
 * of running runs waiting for dispatch) and the dispatch lag (how long the oldest of those has
 * waited), read from the database when Prometheus scrapes (JobStore.queueFigures), so every
 * replica reports the same platform-wide figures.
 */
@Injectable()
export class JobQueueGauges implements OnModuleInit, OnApplicationShutdown {
  private remove: (() => void) | null = null;

  constructor(
    private readonly jobs: JobStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.remove = platformMetrics.addSampler('job-queue', () => this.sample());
  }

  onApplicationShutdown(): void {
    this.remove?.();
  }

  private async sample(): Promise<void> {
    const row = await this.jobs.queueFigures(this.clock.now());
    platformMetrics.jobs.set({ status: 'waiting' }, row.waiting);
    platformMetrics.jobs.set({ status: 'dispatched' }, row.dispatched);
    platformMetrics.jobs.set({ status: 'running' }, row.running);
    platformMetrics.queueDepth.set(row.ready);
    platformMetrics.dispatchLag.set(Math.max(0, row.lag ?? 0));
  }
}
