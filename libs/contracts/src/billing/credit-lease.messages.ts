import { IsIn, IsInt, IsObject, IsOptional, IsString, IsUUID, Length, Max, Min } from 'class-validator';
import { BILLABLE_MODES, type BillableMode } from './credit-reservation.messages';
import type { LedgerEntryDetails } from './ledger-entry-details';
import { ClientCreditScope, QuotaState } from './quota.messages';

/**
 * A credit lease: one ledger hold a gateway replica keeps for a client and hands out to that
 * client's requests in memory. The lease counts as used in the quota like any hold, so the quota
 * stays exact across replicas; a crashed replica's lease expires and its credits come back. A lease
is given back like any hold, with billing-meter.credits.release (its id is the reservation id).
 *
 * Opens a lease (lease_id null) or grows and renews one. `needed` credits must be granted or
 * nothing is; up to `wanted` are granted when the month has room, never more than half of what
 * would remain after `needed`, so the last credits of a month go one request at a time.
 */
export class LeaseCreditsCommand extends ClientCreditScope {
  @IsOptional()
  @IsUUID()
  lease_id: string | null;

  @IsInt()
  @Min(0)
  @Max(100_000)
  needed: number;

  @IsInt()
  @Min(0)
  @Max(100_000)
  wanted: number;

  @IsInt()
  @Min(1)
  @Max(24 * 3600)
  ttl_seconds: number;
}

export interface LeaseCreditsReply {
  granted: boolean;
  /** The lease (new when the one named had expired); null when refused and none is open. */
  lease_id: string | null;
  /** Credits the lease holds now, after this grant; 0 when refused. */
  lease_credits: number;
  /**
   * Credits this call added to the lease. A gateway adds these to its own figure rather than
   * taking lease_credits: charges whose replies it has not seen yet are already out of
   * lease_credits, and would be taken off twice.
   */
  added_credits: number;
  expires_at: number;
  quota: QuotaState;
}

/**
 * Records one charge against a lease: the ledger entry is written and the lease shrinks by the
 * same credits, in one statement shared with every charge that arrived meanwhile (group commit).
 * The reply comes after that statement has committed. Refused (reservation_not_found) when the
 * lease has expired: nothing is recorded then, so an expired lease can never overdraw the month.
 */
export class ChargeLeasedCreditsCommand extends ClientCreditScope {
  @IsUUID()
  lease_id: string;

  @IsInt()
  @Min(0)
  @Max(1000)
  credits: number;

  @IsString()
  @Length(1, 256)
  charge_key: string;

  @IsIn(BILLABLE_MODES)
  mode: BillableMode;

  @IsOptional()
  @IsObject()
  details?: LedgerEntryDetails;
}

/**
 * No quota in the reply: a leased charge moves credits from held to charged, so the month's used
 * credits do not change and the gateway's quota figure stays right without another read.
 */
export interface ChargeLeasedCreditsReply {
  client_id: string;
  entry_id: string;
  /** False when charge_key had already been recorded (idempotent replay). */
  newly_charged: boolean;
}
