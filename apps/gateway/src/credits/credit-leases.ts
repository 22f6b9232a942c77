import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import { SUBJECTS, type BillableMode, type ChargeLeasedCreditsReply, type LedgerEntryDetails, type QuotaState } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AuthenticatedClient } from '../clients/client-directory';
import { QuotaCache } from './quota-cache';

/** When a lease is opened, grown, renewed and given back (decision 0013). */
interface CreditLeaseTiming {
  /** Life of a lease row in the ledger: a crashed gateway's credits come back after at most this. */
  ttlSeconds: number;
  /**
   * A hold is only taken from a lease with at least this much life left, so it ends before the
   * lease does: two thirds of the life (400 s of 600 outlast the longest call, 300 s).
   */
  renewBelowMs: number;
  /** An unused lease goes back to the month after this long, so other replicas and the headers see the credits. */
  idleReturnMs: number;
}

// Credits asked for beyond a request's own: the client's demand over the last second, within
// these bounds, so a busy client grows its lease a few times a second at most.
const MIN_BLOCK = 8;
const MAX_BLOCK = 1000;

/** One lease row as this gateway sees it. */
interface LeaseAccount {
  clientId: string;
  id: string;
  /** Credits in the ledger's lease row. */
  credits: number;
  /** Credits handed to requests still running. */
  inUse: number;
  expiresAtMs: number;
  /** Still the one new holds come from (false once replaced, returned or in doubt). */
  current: boolean;
  idleTimer: NodeJS.Timeout | null;
}

interface ClientLeases {
  current: LeaseAccount | null;
  /** Every account with credits handed out or not yet returned, for the unused-credit figure. */
  accounts: Set<LeaseAccount>;
  growing: Promise<QuotaState | null> | null;
  demandWindowStart: number;
  demandCredits: number;
  lastDemand: number;
}

/** Credits handed to one request from a lease. */
export interface LeasedHold {
  holdId: string;
  credits: number;
  account: LeaseAccount;
}

export type LeaseHoldOutcome = { hold: LeasedHold } | { refused: QuotaState };

/**
 * This gateway replica's credit leases: per client, one hold in the ledger (billing-meter) that
 * requests take their credits from in memory. Holding and releasing cost nothing; a charge is one
 * message, recorded by billing-meter together with every other charge that arrived meanwhile
 * (group commit) before the caller sees it. Guarantees (decision 0013):
 * - the quota is never overdrawn across replicas: a lease is a hold, granted under the account
 *   lock; a charge only turns leased credits into charged ones, and is refused once the lease
 *   has expired;
 * - a charged credit is recorded before the reply: charge() resolves after the commit;
 * - an uncharged failure is never recorded: release() only returns credits to the lease;
 * - a crashed gateway's leases expire (ttlSeconds) and their credits come back.
 */
@Injectable()
export class CreditLeases implements OnApplicationShutdown {
  private readonly logger = new Logger('CreditLeases');
  private readonly clients = new Map<string, ClientLeases>();

  private readonly timing: CreditLeaseTiming;

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(PLATFORM_CONFIG) config: Pick<PlatformConfig, 'creditLeaseSeconds' | 'creditLeaseIdleMs'>,
    private readonly cache: QuotaCache,
  ) {
    this.timing = {
      ttlSeconds: config.creditLeaseSeconds,
      renewBelowMs: Math.floor((config.creditLeaseSeconds * 1000 * 2) / 3),
      idleReturnMs: config.creditLeaseIdleMs,
    };
  }

  /** Credits for one request, or the quota that refused them. */
  async hold(client: AuthenticatedClient, credits: number, correlationId?: string): Promise<LeaseHoldOutcome> {
    const leases = this.leasesOf(client.id);
    this.noteDemand(leases, credits);
    for (;;) {
      const account = leases.current;
      if (account && account.credits - account.inUse >= credits && account.expiresAtMs - Date.now() >= this.timing.renewBelowMs) {
        account.inUse += credits;
        if (account.idleTimer) clearTimeout(account.idleTimer);
        account.idleTimer = null;
        return { hold: { holdId: randomUUID(), credits, account } };
      }
      // One lease call per client at a time; everyone waiting looks again when it is done.
      if (leases.growing) {
        await leases.growing;
        continue;
      }
      leases.growing = this.grow(client, leases, credits, correlationId).finally(() => (leases.growing = null));
      const refused = await leases.growing;
      if (refused) return { refused };
    }
  }

  /** Records the charge (group-committed by billing-meter) and returns the quota after it. */
  async charge(
    client: AuthenticatedClient,
    hold: LeasedHold,
    charge: { credits: number; chargeKey: string; mode: BillableMode; details: LedgerEntryDetails },
    correlationId?: string,
  ): Promise<ChargeLeasedCreditsReply> {
    const account = hold.account;
    try {
      const reply = await this.bus.request(
        SUBJECTS.billing.creditsLeaseCharge,
        {
          client_id: client.id,
          monthly_credits: client.limits.monthlyCredits,
          lease_id: account.id,
          credits: Math.min(charge.credits, hold.credits),
          charge_key: charge.chargeKey,
          mode: charge.mode,
          details: charge.details,
        },
        { correlationId },
      );
      if (reply.newly_charged) account.credits = Math.max(0, account.credits - Math.min(charge.credits, hold.credits));
      return reply;
    } catch (error) {
      // The charge may have been recorded with the reply lost: this account's figure is in
      // doubt, so no new hold comes from it; it goes back when its last hold ends.
      this.retire(account);
      throw error;
    } finally {
      this.handBack(account, hold.credits);
    }
  }

  /** Gives an uncharged hold's credits back to its lease: nothing is written. */
  release(hold: LeasedHold): void {
    this.handBack(hold.account, hold.credits);
  }

  /**
   * `quota` (from billing-meter, where this replica's leases count as used in full) as the client
   * should see it: the leases' credits not handed to any request are not used.
   */
  visible(clientId: string, quota: QuotaState): QuotaState {
    const leases = this.clients.get(clientId);
    if (!leases) return quota;
    let unused = 0;
    for (const account of leases.accounts) unused += Math.max(0, account.credits - account.inUse);
    if (unused === 0) return quota;
    const used = Math.max(0, quota.used - unused);
    return { ...quota, used, remaining: quota.limit === null ? null : Math.max(0, quota.limit - used) };
  }

  /**
   * Shutdown: leases nobody is using go back to the month at once; one with requests still running
   * goes back when its last one ends (their charges need it), or expires.
   */
  async onApplicationShutdown(): Promise<void> {
    const accounts = [...this.clients.values()].flatMap((l) => [...l.accounts]);
    for (const account of accounts) this.retire(account);
    await Promise.all(accounts.filter((a) => a.inUse === 0).map((a) => this.giveBack(a)));
  }

  /** Opens, grows or renews the client's lease; the quota when the month cannot cover `credits`. */
  private async grow(
    client: AuthenticatedClient,
    leases: ClientLeases,
    credits: number,
    correlationId?: string,
  ): Promise<QuotaState | null> {
    const account = leases.current;
    const free = account ? account.credits - account.inUse : 0;
    const needed = Math.max(0, credits - free);
    const block = Math.min(MAX_BLOCK, Math.max(MIN_BLOCK, leases.lastDemand, leases.demandCredits));
    const reply = await this.bus.request(
      SUBJECTS.billing.creditsLease,
      {
        client_id: client.id,
        monthly_credits: client.limits.monthlyCredits,
        lease_id: account?.id ?? null,
        needed,
        wanted: needed + block,
        ttl_seconds: this.timing.ttlSeconds,
      },
      { correlationId },
    );
    this.cache.remember(client.id, reply.quota);
    if (!reply.granted || !reply.lease_id) return reply.quota;
    if (account && account.id === reply.lease_id) {
      // Add, never overwrite: a charge committed before this grant but whose reply is still on its
      // way is already out of reply.lease_credits, and its reply takes it off this figure too.
      // Meanwhile its hold is still counted in inUse, so nothing can be handed out twice.
      account.credits += reply.added_credits;
      account.expiresAtMs = reply.expires_at;
      return null;
    }
    // A new lease: the month changed, or the one named had expired. Holds still out on the old
    // one are charged against it; it goes back when the last of them ends.
    if (account) this.retire(account);
    const fresh: LeaseAccount = {
      clientId: client.id,
      id: reply.lease_id,
      credits: reply.added_credits,
      inUse: 0,
      expiresAtMs: reply.expires_at,
      current: true,
      idleTimer: null,
    };
    leases.current = fresh;
    leases.accounts.add(fresh);
    return null;
  }

  private handBack(account: LeaseAccount, credits: number): void {
    account.inUse = Math.max(0, account.inUse - credits);
    if (account.inUse > 0) return;
    if (!account.current) {
      void this.giveBack(account);
      return;
    }
    if (account.idleTimer) clearTimeout(account.idleTimer);
    account.idleTimer = setTimeout(() => {
      account.idleTimer = null;
      if (account.inUse === 0 && account.current) {
        this.retire(account);
        void this.giveBack(account);
      }
    }, this.timing.idleReturnMs);
    account.idleTimer.unref();
  }

  private retire(account: LeaseAccount): void {
    account.current = false;
    const leases = this.clients.get(account.clientId);
    if (leases?.current === account) leases.current = null;
  }

  private async giveBack(account: LeaseAccount): Promise<void> {
    const leases = this.clients.get(account.clientId);
    if (!leases?.accounts.delete(account)) return;
    if (account.idleTimer) clearTimeout(account.idleTimer);
    if (!leases.current && leases.accounts.size === 0 && !leases.growing) this.clients.delete(account.clientId);
    try {
      const reply = await this.bus.request(
        SUBJECTS.billing.creditsRelease,
        { reservation_id: account.id, monthly_credits: null },
        { timeoutMs: 5000 },
      );
      this.cache.remember(account.clientId, reply.quota);
    } catch (error) {
      // Not lost: the lease expires on its own.
      this.logger.warn(`giving back lease ${account.id} failed (${String(error)}); it expires within ${this.timing.ttlSeconds} s`);
    }
  }

  private leasesOf(clientId: string): ClientLeases {
    let leases = this.clients.get(clientId);
    if (!leases) {
      leases = { current: null, accounts: new Set(), growing: null, demandWindowStart: Date.now(), demandCredits: 0, lastDemand: 0 };
      this.clients.set(clientId, leases);
    }
    return leases;
  }

  private noteDemand(leases: ClientLeases, credits: number): void {
    const now = Date.now();
    if (now - leases.demandWindowStart >= 1000) {
      leases.lastDemand = now - leases.demandWindowStart < 2000 ? leases.demandCredits : 0;
      leases.demandWindowStart = now;
      leases.demandCredits = 0;
    }
    leases.demandCredits += credits;
  }
}
