import type { CommitCreditsCommand, CommitCreditsReply, QuotaState, ReleaseCreditsReply, ReserveCreditsCommand, ReserveCreditsReply } from '@lib/contracts';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ReservationNotFoundError } from '../billing-meter.errors';
import { billingMonthOf, billingMonthResetOf } from './billing-month';

type SqlTx = Parameters<Parameters<DatabaseConnection['sql']['transaction']>[0]>[0];

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

  // Writes are plain SQL on the driver, one transaction each: Prisma's interactive transactions
  // cost ~20 ms a hold on the embedded database, and this runs on every billable request.

  async reserve(command: ReserveCreditsCommand): Promise<ReserveCreditsReply> {
    const now = this.clock.now();
    return this.db.sql.transaction(async (tx) => {
      await lockClient(tx, command.client_id);
      await tx.query('delete from credit_reservations where client_id = $1 and expires_at <= $2', [command.client_id, now]);
      const before = await this.quotaWithin(runnerOf(tx), command.client_id, command.monthly_credits, now);
      if (before.remaining !== null && before.remaining < command.credits) {
        return { granted: false, reservation_id: null, quota: before };
      }
      const id = randomUUID();
      await tx.query('insert into credit_reservations (id, client_id, month, credits, expires_at, created_at) values ($1, $2, $3, $4, $5, $6)', [
        id,
        command.client_id,
        billingMonthOf(now),
        command.credits,
        new Date(now.getTime() + command.ttl_seconds * 1000),
        now,
      ]);
      const used = before.used + command.credits;
      return { granted: true, reservation_id: id, quota: { ...before, used, remaining: before.limit === null ? null : Math.max(0, before.limit - used) } };
    });
  }

  async commit(command: CommitCreditsCommand, monthlyCredits: number | null = null): Promise<CommitCreditsReply> {
    const now = this.clock.now();
    return this.db.sql.transaction(async (tx) => {
      // Learn whose account this is, lock it, then read again: a retry of the same commit running
      // in parallel must see the first one's entry, not race it to the insert.
      const [owner] = await tx.query<{ client_id: string }>(
        '(select client_id from credit_reservations where id = $1) union all (select client_id from credit_ledger_entries where charge_key = $2) limit 1',
        [command.reservation_id, command.charge_key],
      );
      if (!owner) throw new ReservationNotFoundError(`reservation ${command.reservation_id} does not exist or has expired`);
      const clientId = owner.client_id;
      await lockClient(tx, clientId);
      const [existing] = await tx.query<{ id: string }>('select id from credit_ledger_entries where charge_key = $1', [command.charge_key]);
      const deleted = await tx.query<{ id: string }>('delete from credit_reservations where id = $1 returning id', [command.reservation_id]);
      if (existing) {
        return { client_id: clientId, entry_id: existing.id, newly_charged: false, quota: await this.quotaWithin(runnerOf(tx), clientId, monthlyCredits, now) };
      }
      if (deleted.length === 0) throw new ReservationNotFoundError(`reservation ${command.reservation_id} does not exist or has expired`);
      const id = randomUUID();
      const month = billingMonthOf(now);
      await tx.query('insert into credit_ledger_entries (id, client_id, month, credits, mode, charge_key, details, occurred_at) values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)', [
        id,
        clientId,
        month,
        command.credits,
        command.mode,
        command.charge_key,
        JSON.stringify(command.details ?? {}),
        now,
      ]);
      await tx.query(
        'insert into credit_balances (client_id, month, charged) values ($1, $2, $3) on conflict (client_id, month) do update set charged = credit_balances.charged + excluded.charged',
        [clientId, month, command.credits],
      );
      return { client_id: clientId, entry_id: id, newly_charged: true, quota: await this.quotaWithin(runnerOf(tx), clientId, monthlyCredits, now) };
    });
  }

  async release(reservationId: string, monthlyCredits: number | null = null): Promise<ReleaseCreditsReply> {
    const now = this.clock.now();
    return this.db.sql.transaction(async (tx) => {
      const [reservation] = await tx.query<{ client_id: string }>('select client_id from credit_reservations where id = $1', [reservationId]);
      if (!reservation) throw new ReservationNotFoundError(`reservation ${reservationId} does not exist or has expired`);
      await lockClient(tx, reservation.client_id);
      const deleted = await tx.query('delete from credit_reservations where id = $1 returning id', [reservationId]);
      return { client_id: reservation.client_id, released: deleted.length === 1, quota: await this.quotaWithin(runnerOf(tx), reservation.client_id, monthlyCredits, now) };
    });
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

function runnerOf(tx: SqlTx): SqlRunner {
  return <T>(sql: string, params: unknown[]) => tx.query<T>(sql, params);
}

async function lockClient(tx: SqlTx, clientId: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock(hashtext($1))::text as locked', [`credits:${clientId}`]);
}
