import type { DependencyCheck, HealthReport } from '@lib/contracts';
import { DATABASE, DatabaseConnection, pingDatabase } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';
import os from 'node:os';

const STARTED_AT = new Date().toISOString();

/** Measures one dependency; a failure is reported, never thrown. */
export async function timedCheck(probe: () => Promise<unknown>): Promise<DependencyCheck> {
  const started = performance.now();
  try {
    await probe();
    return { status: 'ok', latency_ms: Math.round((performance.now() - started) * 10) / 10 };
  } catch (error) {
    return {
      status: 'down',
      latency_ms: Math.round((performance.now() - started) * 10) / 10,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

export function instanceInfo(): HealthReport['instance'] {
  return { pid: process.pid, hostname: os.hostname(), started_at: STARTED_AT };
}

/** What a context reports about itself: its own dependencies (the database for every context). */
@Injectable()
export class ContextHealthReporter {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async report(service: string): Promise<HealthReport> {
    const database = await timedCheck(() => pingDatabase(this.db));
    return { service, status: database.status, instance: instanceInfo(), checks: { database } };
  }
}
