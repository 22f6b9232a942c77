import { BillableMode, QuotaState, SUBJECTS, type LedgerEntryDetails } from '@lib/contracts';
import { QuotaExceededError } from '@lib/errors';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type { AuthenticatedClient } from '../clients/client-directory';
import { CreditLeases, type LeasedHold } from './credit-leases';
import { QuotaCache } from './quota-cache';

/** Credits held for one call; `reservationId` is unique to the call (charge keys are made of it). */
export interface CreditHold {
  reservationId: string;
  credits: number;
  leased: LeasedHold;
}

/**
 * The gateway's side of the credit ledger (owned by billing-meter): read the quota for the
 * headers, hold credits before billable work starts (from this replica's lease, in memory), then
 * charge them (recorded before this returns) or release them (nothing written).
 */
@Injectable()
export class CreditGate {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly cache: QuotaCache,
    private readonly leases: CreditLeases,
  ) {}

  /** For the headers: from the cache when fresh, else one question to billing-meter. */
  async quotaOf(client: AuthenticatedClient, correlationId?: string): Promise<QuotaState> {
    const cached = this.cache.read(client.id, client.limits.monthlyCredits);
    if (cached) return this.leases.visible(client.id, cached);
    const quota = await this.bus.request(
      SUBJECTS.billing.quotaQuery,
      { client_id: client.id, monthly_credits: client.limits.monthlyCredits },
      { correlationId, timeoutMs: 3000 },
    );
    this.cache.remember(client.id, quota);
    return this.leases.visible(client.id, quota);
  }

  /** Holds `credits` or throws QuotaExceededError (429) when the month's quota cannot cover them. */
  async hold(client: AuthenticatedClient, credits: number, correlationId?: string): Promise<CreditHold> {
    const outcome = await this.leases.hold(client, credits, correlationId);
    if ('refused' in outcome) {
      throw exhausted(this.leases.visible(client.id, outcome.refused), credits, 'this request');
    }
    return { reservationId: outcome.hold.holdId, credits, leased: outcome.hold };
  }

  /** Refuses (429) when the month cannot cover `credits` now, without holding anything (work charged later). */
  async assertAvailable(client: AuthenticatedClient, credits: number, what: string, correlationId?: string): Promise<void> {
    const quota = await this.quotaOf(client, correlationId);
    if (quota.remaining !== null && quota.remaining < credits) throw exhausted(quota, credits, what);
  }

  /** Records the charge; returns after billing-meter has committed it. */
  async charge(
    client: AuthenticatedClient,
    hold: CreditHold,
    credits: number,
    chargeKey: string,
    mode: BillableMode,
    details: LedgerEntryDetails,
    correlationId?: string,
  ): Promise<QuotaState> {
    await this.leases.charge(client, hold.leased, { credits, chargeKey, mode, details }, correlationId);
    return this.quotaOf(client, correlationId);
  }

  /** Gives an uncharged call's credits back to the lease; nothing is written. */
  release(hold: CreditHold): void {
    this.leases.release(hold.leased);
  }
}

function exhausted(quota: QuotaState, credits: number, what: string): QuotaExceededError {
  const retryAfter = Math.max(1, quota.resets_at - Math.floor(Date.now() / 1000));
  return new QuotaExceededError(
    `Monthly credit quota exhausted: ${quota.used} of ${quota.limit} credits used in ${quota.month}; ${what} needs ${credits}. The quota resets at the start of next month (UTC).`,
    retryAfter,
  );
}
