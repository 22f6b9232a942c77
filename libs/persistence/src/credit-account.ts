import type { LedgerEntryDetails } from '@lib/contracts';
import type { SqlExecutor } from './database-connection';
import { storableJson } from './storable-text';

/** A statement runner inside one transaction. */
export type SqlTransaction = Omit<SqlExecutor, 'transaction' | 'transactionOpenedBy'>;

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
  /** A batch job's project (the credit summary's by-project figures). */
  projectId?: string | null;
}

/**
 * Inserts one ledger entry and moves the month's balance with it. Call with the account locked.
 * Returns false (and changes nothing) when the charge key was already recorded.
 */
export async function recordLedgerCharge(tx: SqlTransaction, charge: LedgerCharge): Promise<boolean> {
  const month = creditMonthOf(charge.at);
  // One statement: the balance moves only with an entry actually inserted, as two statements did.
  const inserted = await tx.query(
    `with entry as (
       insert into credit_ledger_entries (id, client_id, month, credits, mode, charge_key, details, occurred_at, project_id)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9) on conflict (charge_key) do nothing returning id, client_id, month, credits
     ), balance as (
       insert into credit_balances (client_id, month, charged) select client_id, month, credits from entry
       on conflict (client_id, month) do update set charged = credit_balances.charged + excluded.charged
     )
     select id from entry`,
    [
      charge.id,
      charge.clientId,
      month,
      charge.credits,
      charge.mode,
      charge.chargeKey,
      storableJson(charge.details),
      charge.at,
      charge.projectId ?? null,
    ],
  );
  return inserted.length === 1;
}

/** A lease row after opening, growing or renewing it. */
export interface LeaseGrant {
  granted: boolean;
  leaseId: string | null;
  leaseCredits: number;
  /** Credits this call added to the month's usage. */
  added: number;
  expiresAt: Date;
}

/**
 * Opens, grows or renews a client's credit lease (a hold a gateway hands out in memory). `needed`
 * credits are granted or nothing is; beyond them up to `wanted`, but never more than half of what
 * would remain, so replicas leave each other room and the month's last credits go one at a time.
 * A lease of another month is not grown: a new one is opened and the old one ends on its own.
 * Call with the account locked, after dropExpiredHolds, with `remaining` read under that lock.
 */
export async function growLease(
  tx: SqlTransaction,
  lease: {
    leaseId: string | null;
    newId: string;
    clientId: string;
    needed: number;
    wanted: number;
    remaining: number | null;
    expiresAt: Date;
    at: Date;
  },
): Promise<LeaseGrant> {
  const month = creditMonthOf(lease.at);
  const [current] = lease.leaseId
    ? await tx.query<{ credits: number }>('select credits from credit_reservations where id = $1 and client_id = $2 and month = $3', [
        lease.leaseId,
        lease.clientId,
        month,
      ])
    : [];
  if (lease.remaining !== null && lease.remaining < lease.needed) {
    return {
      granted: false,
      leaseId: current ? lease.leaseId : null,
      leaseCredits: current?.credits ?? 0,
      added: 0,
      expiresAt: lease.expiresAt,
    };
  }
  const room = lease.remaining === null ? Infinity : Math.floor((lease.remaining - lease.needed) / 2);
  const grant = lease.needed + Math.max(0, Math.min(lease.wanted - lease.needed, room));
  if (current) {
    // Charges against the lease may commit meanwhile (they take no account lock): the figure after
    // this update is read from the row itself.
    const [grown] = await tx.query<{ credits: number }>(
      'update credit_reservations set credits = credits + $2, expires_at = $3 where id = $1 returning credits',
      [lease.leaseId, grant, lease.expiresAt],
    );
    return { granted: true, leaseId: lease.leaseId, leaseCredits: grown.credits, added: grant, expiresAt: lease.expiresAt };
  }
  if (grant === 0) return { granted: true, leaseId: null, leaseCredits: 0, added: 0, expiresAt: lease.expiresAt };
  await holdCredits(tx, { id: lease.newId, clientId: lease.clientId, credits: grant, expiresAt: lease.expiresAt, at: lease.at });
  return { granted: true, leaseId: lease.newId, leaseCredits: grant, added: grant, expiresAt: lease.expiresAt };
}

/** One charge against a lease (see recordLeasedCharges). */
export interface LeasedCharge extends LedgerCharge {
  leaseId: string;
}

/** What became of a leased charge: newly recorded, recorded before (a replay), or refused (lease gone). */
export type LeasedChargeOutcome = { entryId: string; newlyCharged: boolean } | { refused: 'lease_expired' };

// One statement, so one commit for any number of charges (group commit), in a function whose plan
// is kept (migration 20261124220000_leased_charges has the statement and why).
const LEASED_CHARGES_SQL = 'select charge_key, id, inserted, existing_id from record_leased_charges($1::jsonb, $2)';

/**
 * Records charges against leases in one statement (see LEASED_CHARGES_SQL). Charge keys must be
 * distinct within one call. Needs no account lock: a charge only turns held credits into charged
 * ones, so it never raises a month's usage.
 */
export async function recordLeasedCharges(
  run: Pick<SqlExecutor, 'query'>,
  charges: LeasedCharge[],
  now: Date,
): Promise<Map<string, LeasedChargeOutcome>> {
  const input = charges.map((c) => ({
    id: c.id,
    lease_id: c.leaseId,
    client_id: c.clientId,
    month: creditMonthOf(c.at),
    credits: c.credits,
    mode: c.mode,
    charge_key: c.chargeKey,
    details: c.details,
    occurred_at: c.at.toISOString(),
  }));
  const rows = await run.query<{ charge_key: string; id: string; inserted: boolean; existing_id: string | null }>(LEASED_CHARGES_SQL, [
    storableJson(input),
    now,
  ]);
  const outcomes = new Map<string, LeasedChargeOutcome>();
  for (const row of rows) {
    if (row.inserted) outcomes.set(row.charge_key, { entryId: row.id, newlyCharged: true });
    else if (row.existing_id) outcomes.set(row.charge_key, { entryId: row.existing_id, newlyCharged: false });
    else outcomes.set(row.charge_key, { refused: 'lease_expired' });
  }
  return outcomes;
}
