import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import type { QuotaState } from '@lib/contracts';
import {
  AdminOnlyError,
  AuthenticationRequiredError,
  InvalidTokenError,
  RateLimitExceededError,
  unavailableDependencyOf,
} from '@lib/errors';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerTokenOf, hashApiToken } from '../clients/api-token';
import { AuthenticatedClient, ClientDirectory } from '../clients/client-directory';
import { CreditGate } from '../credits/credit-gate';
import { RefusedCallers } from './refused-callers';
import { RateLimitDecision, RequestRateLimiter } from './request-rate-limiter';
import { accessLevelOf, isProbe } from './route-access';
import type { UsageHeaderValues } from './usage-headers';
import { PhaseTimings } from './phase-timings';

/** What admission learned about a request; the usage headers are written from it. */
export interface Admission {
  requestId: string;
  client: AuthenticatedClient | null;
  rateLimit: RateLimitDecision | null;
  quota: QuotaState | null;
  creditsCharged: number;
  /** Where the request's time went (Server-Timing). */
  timings: PhaseTimings;
}

declare module 'fastify' {
  interface FastifyRequest {
    admission: Admission;
  }
}

/**
 * Authentication, rate limiting and quota state for every request, before any work is done.
 * Calls without a valid token are counted per client IP, so token guessing is throttled too.
 */
@Injectable()
export class RequestAdmission {
  private readonly logger = new Logger('RequestAdmission');
  private readonly refused = new RefusedCallers();

  constructor(
    private readonly clients: ClientDirectory,
    private readonly rateLimiter: RequestRateLimiter,
    private readonly credits: CreditGate,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async admit(request: FastifyRequest): Promise<void> {
    const admission: Admission = {
      requestId: String(request.id),
      client: null,
      rateLimit: null,
      quota: null,
      creditsCharged: 0,
      timings: new PhaseTimings(),
    };
    request.admission = admission;
    try {
      await this.admitAs(request, admission);
    } finally {
      admission.timings.mark('admission');
    }
  }

  private async admitAs(request: FastifyRequest, admission: Admission): Promise<void> {
    // A CORS preflight carries no credentials by design; the CORS plugin answers it (or 404s it).
    if (request.method === 'OPTIONS' && this.config.corsOrigins.length > 0 && request.headers['access-control-request-method']) return;
    if (isProbe(request)) return;
    const access = accessLevelOf(request);
    const token = bearerTokenOf(request.headers.authorization);
    // A caller already refused in this window is refused again before any lookup (RefusedCallers).
    const caller = token ? `token:${hashApiToken(token)}` : `ip:${request.ip}`;
    const refused = this.refused.refusalOf(caller);
    if (refused) {
      admission.rateLimit = refused;
      throw rateLimitExceeded(refused);
    }
    const client = token ? await this.authenticate(token, access) : null;

    if (!client) {
      admission.rateLimit = await this.rateLimiter.hit(`ip:${request.ip}`, this.config.anonymousRateLimitPerMinute);
      if (!admission.rateLimit.allowed) this.refuse(caller, admission.rateLimit);
      if (access === 'public') return;
      throw token
        ? new InvalidTokenError('The bearer token is not valid (it may have been rotated). Send Authorization: Bearer <API_KEY>.')
        : new AuthenticationRequiredError('Authentication required: send Authorization: Bearer <API_KEY>.');
    }

    admission.client = client;
    [admission.rateLimit, admission.quota] = await Promise.all([
      this.rateLimiter.hit(`client:${client.id}`, client.limits.rateLimitPerMinute),
      this.quotaFor(client, admission.requestId),
    ]);
    if (!admission.rateLimit.allowed) this.refuse(caller, admission.rateLimit);
    if (access === 'admin') {
      if (!client.isAdmin) throw new AdminOnlyError('This endpoint is for the administrator client only.');
      // Administration (clients, tokens, approvals) has its own, tighter budget: a leaked or
      // runaway admin token cannot mint clients or rotate tokens at the admin client's full rate.
      const adminBudget = await this.rateLimiter.hit(`admin:${client.id}`, this.config.adminRateLimitPerMinute);
      if (!adminBudget.allowed) throw rateLimitExceeded(adminBudget);
    }
  }

  /**
   * The token's client. While the database is away a public route (health, plans, the API
   * description) is served as for an anonymous caller rather than refused: health must be able to
   * say the database is down. Every other route gets the outage (503).
   */
  /** Refuses a call over its limit and remembers the caller: its next calls in the window are refused before any lookup. */
  private refuse(caller: string, decision: RateLimitDecision): never {
    this.refused.remember(caller, decision);
    throw rateLimitExceeded(decision);
  }

  private async authenticate(token: string, access: ReturnType<typeof accessLevelOf>): Promise<AuthenticatedClient | null> {
    try {
      return await this.clients.authenticate(token);
    } catch (error) {
      if (access !== 'public' || !unavailableDependencyOf(error)) throw error;
      this.logger.warn('client lookup failed (database unavailable); public route served anonymously');
      return null;
    }
  }

  /** Writes the usage headers of spec section 8 (and the request id) on every response. */
  writeUsageHeaders(request: FastifyRequest, reply: FastifyReply): void {
    const admission = request.admission;
    const rate = admission?.rateLimit;
    const quota = admission?.quota;
    reply.header('x-request-id', String(request.id));
    if (admission?.timings) reply.header('server-timing', admission.timings.header());
    const values: UsageHeaderValues = {
      'X-RateLimit-Limit': rate?.limit ?? this.config.anonymousRateLimitPerMinute,
      'X-RateLimit-Remaining': rate?.remaining ?? 0,
      'X-RateLimit-Reset': rate?.resetAt ?? Math.ceil(Date.now() / 1000) + 60,
      // 0 means unlimited for X-Quota-Limit; remaining is then 0 as well (documented in docs/api-guide.md).
      'X-Quota-Limit': quota?.limit ?? 0,
      'X-Quota-Used': quota?.used ?? 0,
      'X-Quota-Remaining': quota?.remaining ?? 0,
      'X-Credits-Charged': admission?.creditsCharged ?? 0,
    };
    for (const [name, value] of Object.entries(values)) reply.header(name.toLowerCase(), String(value));
  }

  private async quotaFor(client: AuthenticatedClient, requestId: string): Promise<QuotaState | null> {
    try {
      return await this.credits.quotaOf(client, requestId);
    } catch (error) {
      // Quota headers are informational on non-billable calls; billable calls reserve credits
      // and fail there if billing-meter is unreachable.
      this.logger.warn(`quota lookup failed for ${client.id}: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }
}

/** The refusal of a request over its rate limit, the same for REST and the agent endpoint's batched tool calls. */
export function rateLimitExceeded(decision: RateLimitDecision): RateLimitExceededError {
  return new RateLimitExceededError(
    `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfterSeconds} s.`,
    decision.retryAfterSeconds,
  );
}
