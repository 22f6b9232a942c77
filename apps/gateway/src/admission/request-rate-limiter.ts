import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RateLimiterAbstract, RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  resetAt: number;
  retryAfterSeconds: number;
}

const WINDOW_SECONDS = 60;

/**
 * Fixed one-minute windows per key. With a Postgres database (DATABASE_URL) the counters live in
 * the shared `rate_limit_buckets` table and each hit is one atomic upsert, so any number of
 * gateway replicas enforce one limit together. The embedded runtime has one gateway and counts
 * in memory.
 */
@Injectable()
export class RequestRateLimiter {
  private readonly logger = new Logger('RequestRateLimiter');
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  get store(): 'postgres' | 'memory' {
    return this.db.pool ? 'postgres' : 'memory';
  }

  async hit(key: string, limitPerMinute: number): Promise<RateLimitDecision> {
    const limiter = this.limiterFor(limitPerMinute);
    try {
      return decisionOf(await limiter.consume(key), limitPerMinute, true);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return decisionOf(rejection, limitPerMinute, false);
      throw rejection;
    }
  }

  private limiterFor(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      const memory = new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix: 'rl' });
      limiter = this.db.pool
        ? new RateLimiterPostgres({
            storeClient: this.db.pool,
            storeType: 'pool',
            tableName: 'rate_limit_buckets',
            tableCreated: true,
            points,
            duration: WINDOW_SECONDS,
            keyPrefix: 'rl',
            clearExpiredByTimeout: false,
            // If the shared store fails, keep serving with per-replica limits rather than failing
            // every request; the failure is logged.
            insuranceLimiter: memory,
          })
        : memory;
      this.limiters.set(points, limiter);
      if (this.db.pool) this.logger.debug(`postgres rate limiter for ${points}/min`);
    }
    return limiter;
  }
}

function decisionOf(res: RateLimiterRes, limit: number, allowed: boolean): RateLimitDecision {
  const msBeforeNext = Math.max(0, res.msBeforeNext);
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetAt: Math.ceil((Date.now() + msBeforeNext) / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)),
  };
}
