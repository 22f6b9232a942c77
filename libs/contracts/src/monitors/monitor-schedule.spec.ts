import { nextTickAfter, scheduleProblem, shortestGapSeconds } from './monitor-schedule';

describe('a monitor schedule', () => {
  const now = new Date('2026-12-04T10:07:30Z');

  it('is an interval or a cron in a time zone, never both nor neither, and a cron must parse and fall due', () => {
    expect(scheduleProblem({ interval_seconds: 3600 })).toBeNull();
    expect(scheduleProblem({ cron: '0 */6 * * *', timezone: 'Europe/Berlin' })).toBeNull();
    expect(scheduleProblem({})).toMatch(/exactly one/);
    expect(scheduleProblem({ interval_seconds: 60, cron: '* * * * *' })).toMatch(/exactly one/);
    expect(scheduleProblem({ cron: 'every tuesday' })).toMatch(/does not parse/);
    expect(scheduleProblem({ cron: '0 * * * *', timezone: 'Mars/Olympus' })).toMatch(/does not parse/);
    expect(scheduleProblem({ cron: '0 0 30 2 *' })).not.toBeNull();
  });

  it('falls due next after now, in its time zone: missed times are not caught up one by one', () => {
    expect(nextTickAfter({ interval_seconds: 900 }, now)?.toISOString()).toBe('2026-12-04T10:22:30.000Z');
    expect(nextTickAfter({ cron: '*/15 * * * *' }, now)?.toISOString()).toBe('2026-12-04T10:15:00.000Z');
    // 09:00 in Berlin (UTC+1 in December) is 08:00 UTC: the next is tomorrow's.
    expect(nextTickAfter({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, now)?.toISOString()).toBe('2026-12-05T08:00:00.000Z');
  });

  it("measures a cron's shortest gap for the plan's minimum interval", () => {
    expect(shortestGapSeconds({ interval_seconds: 3600 }, now)).toBe(3600);
    expect(shortestGapSeconds({ cron: '*/5 * * * *' }, now)).toBe(300);
    expect(shortestGapSeconds({ cron: '0,1 9 * * *' }, now)).toBe(60);
    expect(shortestGapSeconds({ cron: '0 */6 * * *' }, now)).toBe(21_600);
  });
});
