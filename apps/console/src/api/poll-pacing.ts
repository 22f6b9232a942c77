/** The per-minute rate limit the API announced last (X-RateLimit-Limit), if any. */
export interface RateLimitSeen {
  rateLimit: number | null;
}

/**
 * How long to wait between two polls of a live page (a run, a viability test): at least `baseMs`,
 * and slow enough that polling spends at most a quarter of the token's per-minute rate limit
 * (the demo plan's 30 a minute means a poll every 8 s), leaving the rest for what the user does.
 */
export function pollDelayMs(baseMs: number, usage: RateLimitSeen | null): number {
  const perMinute = usage?.rateLimit ?? 0;
  return perMinute > 0 ? Math.max(baseMs, Math.ceil((60_000 * 4) / perMinute)) : baseMs;
}
