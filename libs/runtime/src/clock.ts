/** Time as an adapter, so that month boundaries, expiries and windows can be moved in tests. */
export interface Clock {
  now(): Date;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => new Date() };
