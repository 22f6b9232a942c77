import type { LedgerEntryDetails } from '@lib/contracts';
import type { SqlExecutor } from './database-connection';
import { storableJson } from './storable-text';

/** A statement runner inside one transaction. */
export type SqlTransaction = Omit<SqlExecutor, 'transaction'>;

/**
 * The credit ledger's write rules, in one place for the two writers that must share them:
 * billing-meter (sync requests, through reservations) and batch-orchestrator (a job's charge is
 * part of the transaction that completes the job). Both serialize a client's writes with the same
 * advisory lock, so a quota can never be overdrawn between them.
 */
export async function lockCreditAccount(tx: SqlTransaction, clientId: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock(hashtext($1))::text as locked', [`credits:${clientId}`]);
}

/** Credits are counted per calendar month in UTC: the month (YYYY-MM) a charge at `at` belongs to. */
export function creditMonthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** Unix seconds of the first instant of the next UTC month: when the quota resets. */
export function creditMonthResetOf(at: Date): number {
  return Math.floor(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1) / 1000);
}

// One round trip: the month's charged credits (a maintained counter) plus live reservations.
const USAGE_SQL = `select
    coalesce((select charged from credit_balances where client_id = $1 and month = $2), 0)::int as charged,
    coalesce((select sum(credits) from credit_reservations where client_id = $1 and month = $2 and expires_at > $3), 0)::int as held`;

/** Charged plus held credits of the month of `now`. */
export async function creditUsageOf(
  run: Pick<SqlExecutor, 'query'>,
  clientId: string,
  now: Date,
): Promise<{ charged: number; held: number; month: string }> {
  const month = creditMonthOf(now);
  const [row] = await run.query<{ charged: number; held: number }>(USAGE_SQL, [clientId, month, now]);
  return { charged: row.charged, held: row.held, month };
}

/** Holds credits (counted as used) until charged, released or expired. Call with the account locked. */
export async function holdCredits(
  tx: SqlTransaction,
  hold: { id: string; clientId: string; credits: number; expiresAt: Date; at: Date },
): Promise<void> {
  await tx.query(
    'insert into credit_reservations (id, client_id, month, credits, expires_at, created_at) values ($1, $2, $3, $4, $5, $6)',
    [hold.id, hold.clientId, creditMonthOf(hold.at), hold.credits, hold.expiresAt, hold.at],
  );
}

/**
 * Ends a hold (charged, failed or abandoned); false when it was gone already. Releasing only lowers
 * the month's usage, so it needs the account lock only where the caller goes on to read or charge it.
 */
export async function releaseHold(tx: SqlTransaction, reservationId: string): Promise<boolean> {
  const deleted = await tx.query('delete from credit_reservations where id = $1 returning id', [reservationId]);
  return deleted.length === 1;
}

/** Drops the client's holds that outlived their TTL (a crashed caller's). Call with the account locked. */
export async function dropExpiredHolds(tx: SqlTransaction, clientId: string, now: Date): Promise<void> {
  await tx.query('delete from credit_reservations where client_id = $1 and expires_at <= $2', [clientId, now]);
}

/** Whose account a hold belongs to, or (once charged) the entry recorded under `chargeKey`; null when neither exists. */
export async function creditAccountOf(tx: SqlTransaction, ref: { reservationId: string; chargeKey?: string }): Promise<string | null> {
  const [owner] = await tx.query<{ client_id: string }>(
    '(select client_id from credit_reservations where id = $1) union all (select client_id from credit_ledger_entries where charge_key = $2) limit 1',
    [ref.reservationId, ref.chargeKey ?? null],
  );
  return owner?.client_id ?? null;
}

/** The ledger entry already recorded under a charge key (a retried commit), if any. */
export async function ledgerEntryIdOf(tx: SqlTransaction, chargeKey: string): Promise<string | null> {
  const [entry] = await tx.query<{ id: string }>('select id from credit_ledger_entries where charge_key = $1', [chargeKey]);
  return entry?.id ?? null;
}

export interface LedgerCharge {
  id: string;
  clientId: string;
  credits: number;
  mode: string;
  /** Unique per billable event: a retried write never charges twice. */
  chargeKey: string;
  details: LedgerEntryDetails | Record<string, never>;
  at: Date;
}

/**
 * Inserts one ledger entry and moves the month's balance with it. Call with the account locked.
 * Returns false (and changes nothing) when the charge key was already recorded.
 */
export async function recordLedgerCharge(tx: SqlTransaction, charge: LedgerCharge): Promise<boolean> {
  const month = creditMonthOf(charge.at);
  const inserted = await tx.query(
    `insert into credit_ledger_entries (id, client_id, month, credits, mode, charge_key, details, occurred_at)
     values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) on conflict (charge_key) do nothing returning id`,
    [charge.id, charge.clientId, month, charge.credits, charge.mode, charge.chargeKey, storableJson(charge.details), charge.at],
  );
  if (inserted.length === 0) return false;
  await tx.query(
    'insert into credit_balances (client_id, month, charged) values ($1, $2, $3) on conflict (client_id, month) do update set charged = credit_balances.charged + excluded.charged',
    [charge.clientId, month, charge.credits],
  );
  return true;
}
