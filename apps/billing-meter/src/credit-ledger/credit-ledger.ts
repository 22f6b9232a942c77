import type { CommitCreditsCommand, CommitCreditsReply, QuotaState, ReleaseCreditsReply, ReserveCreditsCommand, ReserveCreditsReply } from '@lib/contracts';
import { DATABASE, DatabaseConnection, Prisma } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ReservationNotFoundError } from '../billing-meter.errors';
import { billingMonthOf, billingMonthResetOf } from './billing-month';

type Tx = Prisma.TransactionClient;

/** Runs one parameterized statement ($1, $2…) and returns its rows. */
type SqlRunner = <T>(sql: string, params: unknown[]) => Promise<T[]>;

// One round trip: the month's charged credits (a maintained counter) plus live reservations.
const QUOTA_SQL = `select
    coalesce((select charged from credit_balances where client_id = $1 and month = $2), 0)::int as charged,
    coalesce((select sum(credits) from credit_reservations where client_id = $1 and month = $2 and expires_at > $3), 0)::int as held`;

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
    return this.quotaWithin((sql, params) => this.db.sql.query(sql, params), clientId, monthlyCredits, this.clock.now());
  }

  async reserve(command: ReserveCreditsCommand): Promise<ReserveCreditsReply> {
    const now = this.clock.now();
    return this.db.prisma.$transaction(async (tx) => {
      await this.lockClient(tx, command.client_id);
      await tx.creditReservation.deleteMany({ where: { clientId: command.client_id, expiresAt: { lte: now } } });
      const before = await this.quotaWithin(runnerOf(tx), command.client_id, command.monthly_credits, now);
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
      return { granted: true, reservation_id: reservation.id, quota: await this.quotaWithin(runnerOf(tx), command.client_id, command.monthly_credits, now) };
    });
  }

  async commit(command: CommitCreditsCommand, monthlyCredits: number | null = null): Promise<CommitCreditsReply> {
    const now = this.clock.now();
    return this.db.prisma.$transaction(async (tx) => {
      // Read once to learn whose account this is, lock it, then read again: a retry of the same
      // commit running in parallel must see the first one's entry, not race it to the insert.
      const clientId = await this.clientOfCommit(tx, command);
      await this.lockClient(tx, clientId);
      const reservation = await tx.creditReservation.findUnique({ where: { id: command.reservation_id } });
      const existing = await tx.creditLedgerEntry.findUnique({ where: { chargeKey: command.charge_key } });
      if (!reservation && !existing) throw new ReservationNotFoundError(`reservation ${command.reservation_id} does not exist or has expired`);
      if (reservation) await tx.creditReservation.deleteMany({ where: { id: reservation.id } });
      if (existing) {
        return { client_id: clientId, entry_id: existing.id, newly_charged: false, quota: await this.quotaWithin(runnerOf(tx), clientId, monthlyCredits, now) };
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
      await tx.creditBalance.upsert({
        where: { clientId_month: { clientId, month: entry.month } },
        create: { clientId, month: entry.month, charged: command.credits },
        update: { charged: { increment: command.credits } },
      });
      return { client_id: clientId, entry_id: entry.id, newly_charged: true, quota: await this.quotaWithin(runnerOf(tx), clientId, monthlyCredits, now) };
    });
  }

  async release(reservationId: string, monthlyCredits: number | null = null): Promise<ReleaseCreditsReply> {
    const now = this.clock.now();
    return this.db.prisma.$transaction(async (tx) => {
      const reservation = await tx.creditReservation.findUnique({ where: { id: reservationId } });
      if (!reservation) throw new ReservationNotFoundError(`reservation ${reservationId} does not exist or has expired`);
      await this.lockClient(tx, reservation.clientId);
      const { count } = await tx.creditReservation.deleteMany({ where: { id: reservationId } });
      return { client_id: reservation.clientId, released: count === 1, quota: await this.quotaWithin(runnerOf(tx), reservation.clientId, monthlyCredits, now) };
    });
  }

  private async clientOfCommit(tx: Tx, command: CommitCreditsCommand): Promise<string> {
    const reservation = await tx.creditReservation.findUnique({ where: { id: command.reservation_id }, select: { clientId: true } });
    const existing = reservation ? null : await tx.creditLedgerEntry.findUnique({ where: { chargeKey: command.charge_key }, select: { clientId: true } });
    const clientId = reservation?.clientId ?? existing?.clientId;
    if (!clientId) throw new ReservationNotFoundError(`reservation ${command.reservation_id} does not exist or has expired`);
    return clientId;
  }

  private async lockClient(tx: Tx, clientId: string): Promise<void> {
    await tx.$queryRaw`select pg_advisory_xact_lock(hashtext(${`credits:${clientId}`}))::text as locked`;
  }

  private async quotaWithin(run: SqlRunner, clientId: string, monthlyCredits: number | null, now: Date): Promise<QuotaState> {
    const month = billingMonthOf(now);
    const [row] = await run<{ charged: number; held: number }>(QUOTA_SQL, [clientId, month, now]);
    const used = row.charged + row.held;
    return {
      month,
      limit: monthlyCredits,
      used,
      remaining: monthlyCredits === null ? null : Math.max(0, monthlyCredits - used),
      resets_at: billingMonthResetOf(now),
      as_of: this.clock.now().getTime(),
    };
  }
}

function runnerOf(tx: Tx): SqlRunner {
  return <T>(sql: string, params: unknown[]) => tx.$queryRawUnsafe<T[]>(sql, ...params);
}
