import type {
  ChargeLeasedCreditsCommand,
  ChargeLeasedCreditsReply,
  CommitCreditsCommand,
  LeaseCreditsCommand,
  LeaseCreditsReply,
  CommitCreditsReply,
  QuotaState,
  ReleaseCreditsReply,
  ReserveCreditsCommand,
  ReserveCreditsReply,
} from '@lib/contracts';
import {
  creditAccountOf,
  creditMonthResetOf,
  creditUsageOf,
  DATABASE,
  DatabaseConnection,
  dropExpiredHolds,
  growLease,
  holdCredits,
  ledgerEntryIdOf,
  lockCreditAccount,
  recordLeasedCharges,
  recordLedgerCharge,
  releaseHold,
  type SqlTransaction,
} from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ReservationNotFoundError } from '../billing-meter.errors';

/**
 * The monthly credit account of every client. "Used" is the month's charged credits plus live
 * reservations. Charged credits are a counter (credit_balances) updated in the same transaction
 * that inserts the ledger entry, so it always equals the sum of the month's entries while reading
 * it stays one row however many entries a month has. Writes for one client are serialized with a
 * transaction-scoped advisory lock, so concurrent reservations can never overdraw the quota,
 * across any number of replicas.
 */
@Injectable()
export class CreditLedger {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The hot path (read on every API call): one statement straight through the driver. */
  async quota(clientId: string, monthlyCredits: number | null): Promise<QuotaState> {
    return this.quotaWithin(this.db.sql, clientId, monthlyCredits, this.clock.now());
  }

  // Writes go through the credit account's SQL statements (libs/persistence), one driver transaction
  // each: this runs on every billable request, and a Prisma interactive transaction costs 3–4× as
  // much on the embedded database (decision 0012).

  async reserve(command: ReserveCreditsCommand): Promise<ReserveCreditsReply> {
    const now = this.clock.now();
    return this.db.sql.transaction(async (tx) => {
      await lockCreditAccount(tx, command.client_id);
      await dropExpiredHolds(tx, command.client_id, now);
      const before = await this.quotaWithin(tx, command.client_id, command.monthly_credits, now);
      if (before.remaining !== null && before.remaining < command.credits) {
        return { granted: false, reservation_id: null, quota: before };
      }
      const id = randomUUID();
      await holdCredits(tx, {
        id,
        clientId: command.client_id,
        credits: command.credits,
        expiresAt: new Date(now.getTime() + command.ttl_seconds * 1000),
        at: now,
      });
      const used = before.used + command.credits;
      return {
        granted: true,
        reservation_id: id,
        quota: { ...before, used, remaining: before.limit === null ? null : Math.max(0, before.limit - used) },
      };
    });
  }

  async commit(command: CommitCreditsCommand, monthlyCredits: number | null = null): Promise<CommitCreditsReply> {
    const now = this.clock.now();
    return this.db.sql.transaction(async (tx) => {
      // Learn whose account this is, lock it, then read again: a retry of the same commit running
      // in parallel must see the first one's entry, not race it to the insert.
      const clientId = await creditAccountOf(tx, { reservationId: command.reservation_id, chargeKey: command.charge_key });
      if (!clientId) throw new ReservationNotFoundError(`reservation ${command.reservation_id} does not exist or has expired`);
      await lockCreditAccount(tx, clientId);
      const existing = await ledgerEntryIdOf(tx, command.charge_key);
      const released = await releaseHold(tx, command.reservation_id);
      if (existing) {
        return {
          client_id: clientId,
          entry_id: existing,
          newly_charged: false,
          quota: await this.quotaWithin(tx, clientId, monthlyCredits, now),
        };
      }
      if (!released) throw new ReservationNotFoundError(`reservation ${command.reservation_id} does not exist or has expired`);
      const id = randomUUID();
      await recordLedgerCharge(tx, {
        id,
        clientId,
        credits: command.credits,
        mode: command.mode,
        chargeKey: command.charge_key,
        details: command.details ?? {},
        at: now,
      });
      return { client_id: clientId, entry_id: id, newly_charged: true, quota: await this.quotaWithin(tx, clientId, monthlyCredits, now) };
    });
  }

  async release(reservationId: string, monthlyCredits: number | null = null): Promise<ReleaseCreditsReply> {
    const now = this.clock.now();
    return this.db.sql.transaction(async (tx) => {
      const clientId = await creditAccountOf(tx, { reservationId });
      if (!clientId) throw new ReservationNotFoundError(`reservation ${reservationId} does not exist or has expired`);
      await lockCreditAccount(tx, clientId);
      const released = await releaseHold(tx, reservationId);
      return { client_id: clientId, released, quota: await this.quotaWithin(tx, clientId, monthlyCredits, now) };
    });
  }

  /** Opens, grows or renews a gateway's lease on a client's credits (see growLease). */
  async lease(command: LeaseCreditsCommand): Promise<LeaseCreditsReply> {
    const now = this.clock.now();
    return this.db.sql.transaction(async (tx) => {
      await lockCreditAccount(tx, command.client_id);
      await dropExpiredHolds(tx, command.client_id, now);
      const before = await this.quotaWithin(tx, command.client_id, command.monthly_credits, now);
      const grant = await growLease(tx, {
        leaseId: command.lease_id,
        newId: randomUUID(),
        clientId: command.client_id,
        needed: command.needed,
        wanted: Math.max(command.needed, command.wanted),
        remaining: before.remaining,
        expiresAt: new Date(now.getTime() + command.ttl_seconds * 1000),
        at: now,
      });
      const used = before.used + grant.added;
      return {
        granted: grant.granted,
        lease_id: grant.leaseId,
        lease_credits: grant.leaseCredits,
        added_credits: grant.added,
        expires_at: grant.expiresAt.getTime(),
        quota: { ...before, used, remaining: before.limit === null ? null : Math.max(0, before.limit - used) },
      };
    });
  }

  /**
   * Records leased charges, many at once (ChargeGroupCommit calls this with everything that
   * arrived while the previous group was being written): one statement, one commit.
   */
  async chargeLeased(commands: ChargeLeasedCreditsCommand[]): Promise<Array<ChargeLeasedCreditsReply | ReservationNotFoundError>> {
    const now = this.clock.now();
    const outcomes = await recordLeasedCharges(
      this.db.sql,
      commands.map((c) => ({
        id: randomUUID(),
        leaseId: c.lease_id,
        clientId: c.client_id,
        credits: c.credits,
        mode: c.mode,
        chargeKey: c.charge_key,
        details: c.details ?? {},
        at: now,
      })),
      now,
    );
    return commands.map((c) => {
      const outcome = outcomes.get(c.charge_key);
      if (!outcome || 'refused' in outcome) {
        return new ReservationNotFoundError(`credit lease ${c.lease_id} has expired; the charge ${c.charge_key} was not recorded`);
      }
      return { client_id: c.client_id, entry_id: outcome.entryId, newly_charged: outcome.newlyCharged };
    });
  }

  private async quotaWithin(
    run: Pick<SqlTransaction, 'query'>,
    clientId: string,
    monthlyCredits: number | null,
    now: Date,
  ): Promise<QuotaState> {
    return this.quotaOf(await creditUsageOf(run, clientId, now), monthlyCredits, now);
  }

  private quotaOf(
    { charged, held, month }: { charged: number; held: number; month: string },
    monthlyCredits: number | null,
    now: Date,
  ): QuotaState {
    const used = charged + held;
    return {
      month,
      limit: monthlyCredits,
      used,
      remaining: monthlyCredits === null ? null : Math.max(0, monthlyCredits - used),
      resets_at: creditMonthResetOf(now),
      as_of: this.clock.now().getTime(),
    };
  }
}
