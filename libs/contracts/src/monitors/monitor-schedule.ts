import { Cron } from 'croner';

/** A monitor's schedule as stored: an interval, or a cron expression in a time zone. */
export interface StoredSchedule {
  interval_seconds?: number;
  cron?: string;
  timezone?: string;
}

/** Why a schedule cannot be used (an unparseable cron, an unknown zone, both or neither given), or null. */
export function scheduleProblem(schedule: StoredSchedule): string | null {
  if ((schedule.interval_seconds === undefined) === (schedule.cron === undefined))
    return 'schedule needs exactly one of interval_seconds and cron.';
  if (schedule.cron === undefined) return null;
  try {
    const cron = new Cron(schedule.cron, { paused: true, timezone: schedule.timezone ?? 'UTC' });
    if (cron.nextRun(new Date()) === null) return `cron "${schedule.cron}" never falls due.`;
    return null;
  } catch (error) {
    return `cron "${schedule.cron}"${schedule.timezone ? ` in ${schedule.timezone}` : ''} does not parse: ${(error as Error).message}`;
  }
}

/**
 * The shortest gap between two ticks of a schedule (an interval's seconds; the least of a cron's
 * next gaps from now, over a day of them), for the plan's minimum interval.
 */
export function shortestGapSeconds(schedule: StoredSchedule, from = new Date()): number {
  if (schedule.interval_seconds !== undefined) return schedule.interval_seconds;
  const cron = new Cron(schedule.cron!, { paused: true, timezone: schedule.timezone ?? 'UTC' });
  const runs = cron.nextRuns(48, from);
  let gap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < runs.length; i += 1) gap = Math.min(gap, (runs[i].getTime() - runs[i - 1].getTime()) / 1000);
  return gap;
}

/**
 * When the tick after `now` falls due. After an outage, the next time after now, not after the
 * tick that was missed: however many were missed, one catch-up tick (the one due now), never a storm.
 */
export function nextTickAfter(schedule: StoredSchedule, now: Date): Date | null {
  if (schedule.interval_seconds !== undefined) return new Date(now.getTime() + schedule.interval_seconds * 1000);
  return new Cron(schedule.cron!, { paused: true, timezone: schedule.timezone ?? 'UTC' }).nextRun(now);
}
