import { BillableMode, QuotaState, SUBJECTS, type LedgerEntryDetails } from '@lib/contracts';
import { QuotaExceededError } from '@lib/errors';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type { AuthenticatedClient } from '../clients/client-directory';
import { QuotaCache } from './quota-cache';

export interface CreditHold {
  reservationId: string;
  credits: number;
  quota: QuotaState;
}

/**
 * The gateway's side of the credit ledger (owned by billing-meter): read the quota for the
 * headers, hold credits before billable work starts, then charge or release them.
 */
@Injectable()
export class CreditGate {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly cache: QuotaCache,
  ) {}

  /** For the headers: from the cache when fresh, else one question to billing-meter. */
  async quotaOf(client: AuthenticatedClient, correlationId?: string): Promise<QuotaState> {
    const cached = this.cache.read(client.id, client.limits.monthlyCredits);
    if (cached) return cached;
    const quota = await this.bus.request(
      SUBJECTS.billing.quotaQuery,
      { client_id: client.id, monthly_credits: client.limits.monthlyCredits },
      { correlationId, timeoutMs: 3000 },
    );
    this.cache.remember(client.id, quota);
    return quota;
  }

  /** Holds `credits` or throws QuotaExceededError (429) when the month's quota cannot cover them. */
  async hold(client: AuthenticatedClient, credits: number, ttlSeconds: number, correlationId?: string): Promise<CreditHold> {
    const reply = await this.bus.request(
      SUBJECTS.billing.creditsReserve,
      { client_id: client.id, monthly_credits: client.limits.monthlyCredits, credits, ttl_seconds: ttlSeconds },
      { correlationId },
    );
    this.cache.remember(client.id, reply.quota);
    if (!reply.granted || !reply.reservation_id) throw exhausted(reply.quota, credits, 'this request');
    return { reservationId: reply.reservation_id, credits, quota: reply.quota };
  }

  /** Refuses (429) when the month cannot cover `credits` now, without holding anything (work charged later). */
  async assertAvailable(client: AuthenticatedClient, credits: number, what: string, correlationId?: string): Promise<void> {
    const quota = await this.quotaOf(client, correlationId);
    if (quota.remaining !== null && quota.remaining < credits) throw exhausted(quota, credits, what);
  }

  async charge(
    client: AuthenticatedClient,
    hold: CreditHold,
    credits: number,
    chargeKey: string,
    mode: BillableMode,
    details: LedgerEntryDetails,
    correlationId?: string,
  ): Promise<QuotaState> {
    const reply = await this.bus.request(
      SUBJECTS.billing.creditsCommit,
      { reservation_id: hold.reservationId, credits, charge_key: chargeKey, mode, details, monthly_credits: client.limits.monthlyCredits },
      { correlationId },
    );
    this.cache.remember(client.id, reply.quota);
    return reply.quota;
  }

  async release(client: AuthenticatedClient, hold: CreditHold, correlationId?: string): Promise<QuotaState> {
    const reply = await this.bus.request(
      SUBJECTS.billing.creditsRelease,
      { reservation_id: hold.reservationId, monthly_credits: client.limits.monthlyCredits },
      { correlationId },
    );
    this.cache.remember(client.id, reply.quota);
    return reply.quota;
  }
}

function exhausted(quota: QuotaState, credits: number, what: string): QuotaExceededError {
  const retryAfter = Math.max(1, quota.resets_at - Math.floor(Date.now() / 1000));
  return new QuotaExceededError(
    `Monthly credit quota exhausted: ${quota.used} of ${quota.limit} credits used in ${quota.month}; ${what} needs ${credits}. The quota resets at the start of next month (UTC).`,
    retryAfter,
  );
}
