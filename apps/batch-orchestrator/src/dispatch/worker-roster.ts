import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { type JobWorkerAliveEvent, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { CLOCK, Clock, PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { JobStore } from '../persistence/jobs.store';
import { LeaseSweeper } from './lease-sweeper';

const CHECK_EVERY_MS = 500;

/**
 * The job workers that are alive, from their beats (SUBJECTS.jobs.workerAlive, heard by every
 * replica). A worker that held jobs and then falls silent for ENGINE_SILENCE_MS has died (kill -9,
 * OOM, a lost node): its jobs' leases end now and the sweep dispatches them again, so a run goes
 * on seconds after the fault instead of a lease later (JOB_LEASE_SECONDS, 30 s, stays the net for
 * whatever this misses). Silence is only believed while the broker has been reachable for longer
 * than that: during and just after an outage nobody's beats arrive, and nobody is presumed dead.
 * Expiring is fenced like the sweeper (status, worker id): replicas doing it at once agree.
 */
@Injectable()
export class WorkerRoster implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WorkerRoster');
  private readonly lastHeard = new Map<string, number>();
  private readonly schedule = new PeriodicTask('WorkerRoster', CHECK_EVERY_MS, () => this.check());
  private stopListening: (() => void) | null = null;

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly jobs: JobStore,
    private readonly sweeper: LeaseSweeper,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Embedded, the workers live and die with this process (the sweeper takes their jobs back at start).
    if (this.bus.kind !== 'nats') return;
    this.stopListening = await this.bus.listenAll(SUBJECTS.jobs.workerAlive, (event) => this.heard(event));
    this.schedule.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopListening?.();
    await this.schedule.stop();
  }

  heard(event: JobWorkerAliveEvent): void {
    if (typeof event?.worker_id !== 'string' || typeof event.jobs_in_hand !== 'number') return;
    if (event.jobs_in_hand > 0) this.lastHeard.set(event.worker_id, performance.now());
    else this.lastHeard.delete(event.worker_id);
  }

  /** Workers silent past the limit: their jobs go back to the queue. */
  async check(): Promise<void> {
    const silenceMs = this.config.engineSilenceMs;
    if (this.bus.reachableForMs() <= silenceMs) return;
    const now = performance.now();
    const lost = [...this.lastHeard].filter(([, heardAt]) => now - heardAt > silenceMs).map(([workerId]) => workerId);
    if (lost.length === 0) return;
    let expired = 0;
    for (const workerId of lost) {
      // Forgotten only once its jobs are back: a database that fails now is tried again next pass.
      const count = await this.jobs.expireLeasesOf(workerId, this.clock.now());
      this.lastHeard.delete(workerId);
      if (count > 0)
        this.logger.warn(`job worker ${workerId} fell silent (${silenceMs} ms) holding ${count} job(s): dispatching them again`);
      expired += count;
    }
    if (expired > 0) await this.sweeper.sweepNow();
  }
}
