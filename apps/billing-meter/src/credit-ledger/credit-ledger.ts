import type { CommitCreditsCommand, CommitCreditsReply, QuotaState, ReleaseCreditsReply, ReserveCreditsCommand, ReserveCreditsReply } from '@lib/contracts';
import { DATABASE, DatabaseConnection, Prisma } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ReservationNotFoundError } from '../billing-meter.errors';
import { billingMonthOf, billingMonthResetOf } from './billing-month';

type Tx = Prisma.TransactionClient;

/**
 * The monthly credit account of every client. "Used" is always derived from rows (ledger entries
 * of the month plus live reservations), never kept as a separate counter, so it cannot disagree
 * with them. Writes for one client are serialized with a transaction-scoped advisory lock, so
 * concurrent reservations can never overdraw the quota, across any number of replicas.
 */
@Injectable()
export class CreditLedger {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async quota(clientId: string, monthlyCredits: number | null): Promise<QuotaState> {
    return this.quotaWithin(this.db.prisma, clientId, monthlyCredits, this.clock.now());
  }

  async reserve(command: ReserveCreditsCommand): Promise<ReserveCreditsReply> {
    const now = this.clock.now();
    return this.db.prisma.$transaction(async (tx) => {
      await this.lockClient(tx, command.client_id);
      await tx.creditReservation.deleteMany({ where: { clientId: command.client_id, expiresAt: { lte: now } } });
      const before = await this.quotaWithin(tx, command.client_id, command.monthly_credits, now);
      if (before.remaining !== null && before.remaining < command.credits) {
        return { granted: false, reservation_id: null, quota: before };
      }
      const reservation = await tx.creditReservation.create({
        data: {
          id: randomUUID(),
          clientId: command.client_id,
          month: billingMonthOf(now),
          credits: command.credits,
          expiresAt: new Date(now.getTime() + command.ttl_seconds * 1000),
        },
      });
      return { granted: true, reservation_id: reservation.id, quota: await this.quotaWithin(tx, command.client_id, command.monthly_credits, now) };
    });
  }

  async commit(command: CommitCreditsCommand, monthlyCredits: number | null = null): Promise<CommitCreditsReply> {
    const now = this.clock.now();
    return this.db.prisma.$transaction(async (tx) => {
      const reservation = await tx.creditReservation.findUnique({ where: { id: command.reservation_id } });
      const existing = await tx.creditLedgerEntry.findUnique({ where: { chargeKey: command.charge_key } });
      const clientId = reservation?.clientId ?? existing?.clientId;
      if (!clientId) throw new ReservationNotFoundError(`reservation ${command.reservation_id} does not exist or has expired`);
      await this.lockClient(tx, clientId);
      if (reservation) await tx.creditReservation.deleteMany({ where: { id: reservation.id } });
      if (existing) {
        return { entry_id: existing.id, newly_charged: false, quota: await this.quotaWithin(tx, clientId, monthlyCredits, now) };
      }
      const entry = await tx.creditLedgerEntry.create({
        data: {
          id: randomUUID(),
          clientId,
          month: billingMonthOf(now),
          credits: command.credits,
          mode: command.mode,
          chargeKey: command.charge_key,
          details: (command.details ?? {}) as Prisma.InputJsonValue,
          occurredAt: now,
        },
      });
      return { entry_id: entry.id, newly_charged: true, quota: await this.quotaWithin(tx, clientId, monthlyCredits, now) };
    });
  }

  async release(reservationId: string, monthlyCredits: number | null = null): Promise<ReleaseCreditsReply> {
    const now = this.clock.now();
    return this.db.prisma.$transaction(async (tx) => {
      const reservation = await tx.creditReservation.findUnique({ where: { id: reservationId } });
      if (!reservation) throw new ReservationNotFoundError(`reservation ${reservationId} does not exist or has expired`);
      await this.lockClient(tx, reservation.clientId);
      const { count } = await tx.creditReservation.deleteMany({ where: { id: reservationId } });
      return { released: count === 1, quota: await this.quotaWithin(tx, reservation.clientId, monthlyCredits, now) };
    });
  }

  private async lockClient(tx: Tx, clientId: string): Promise<void> {
    await tx.$queryRaw`select pg_advisory_xact_lock(hashtext(${`credits:${clientId}`}))::text as locked`;
  }

  private async quotaWithin(tx: Tx | DatabaseConnection['prisma'], clientId: string, monthlyCredits: number | null, now: Date): Promise<QuotaState> {
    const month = billingMonthOf(now);
    const [charged, held] = await Promise.all([
      tx.creditLedgerEntry.aggregate({ _sum: { credits: true }, where: { clientId, month } }),
      tx.creditReservation.aggregate({ _sum: { credits: true }, where: { clientId, month, expiresAt: { gt: now } } }),
    ]);
    const used = (charged._sum.credits ?? 0) + (held._sum.credits ?? 0);
    return {
      month,
      limit: monthlyCredits,
      used,
      remaining: monthlyCredits === null ? null : Math.max(0, monthlyCredits - used),
      resets_at: billingMonthResetOf(now),
    };
  }
}
