import type { Clock } from '@lib/runtime';

/**
 * The platform's Clock, moved by the test: retention, leases, expiries and month boundaries are
 * tested by moving time, never by waiting. Starts at `start` (a fixed instant) or, without one,
 * follows the real time plus an offset the test moves.
 */
export class MovableClock implements Clock {
  private fixed: Date | null;
  /** How far the clock is moved from its start (or from the real time); tests may set it directly. */
  offsetMs = 0;

  constructor(start?: Date | string) {
    this.fixed = start === undefined ? null : new Date(start);
  }

  now(): Date {
    return new Date((this.fixed?.getTime() ?? Date.now()) + this.offsetMs);
  }

  /** Moves time forward (or back, with a negative amount). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Jumps to an instant; time then stands still there until moved again. */
  set(at: Date | string): void {
    this.fixed = new Date(at);
    this.offsetMs = 0;
  }

  /** Back to the real time. */
  reset(): void {
    this.fixed = null;
    this.offsetMs = 0;
  }
}
