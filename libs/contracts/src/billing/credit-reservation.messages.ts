import { IsIn, IsInt, IsObject, IsOptional, IsString, IsUUID, Length, Max, Min } from 'class-validator';
import type { LedgerEntryDetails } from './ledger-entry-details';
import { ClientCreditScope, QuotaState } from './quota.messages';

export const BILLABLE_MODES = ['simple', 'browser', 'download'] as const;
export type BillableMode = (typeof BILLABLE_MODES)[number];

export class ReserveCreditsCommand extends ClientCreditScope {
  @IsInt()
  @Min(1)
  @Max(1000)
  credits: number;

  /** How long the hold lives if neither committed nor released (a crashed caller). */
  @IsInt()
  @Min(1)
  @Max(24 * 3600)
  ttl_seconds: number;
}

export interface ReserveCreditsReply {
  granted: boolean;
  reservation_id: string | null;
  quota: QuotaState;
}

/** Names a reservation made by ReserveCreditsCommand. */
export class ReservationReference {
  @IsUUID()
  reservation_id: string;

  /** The client's monthly credits as the gateway resolved them (for the quota in the reply). */
  @IsOptional()
  @IsInt()
  @Min(0)
  monthly_credits?: number | null;
}

export class CommitCreditsCommand extends ReservationReference {
  /** Actual cost; may be lower than reserved (e.g. a browser request that fell back). */
  @IsInt()
  @Min(0)
  @Max(1000)
  credits: number;

  /** Unique per billable event (request id, or job id + attempt); a replay charges nothing new. */
  @IsString()
  @Length(1, 256)
  charge_key: string;

  @IsIn(BILLABLE_MODES)
  mode: BillableMode;

  /** Facts for billing reports (target domain, status code, timings, success, the call it charged). */
  @IsOptional()
  @IsObject()
  details?: LedgerEntryDetails;
}

export interface CommitCreditsReply {
  client_id: string;
  entry_id: string;
  /** False when charge_key had already been recorded (idempotent replay). */
  newly_charged: boolean;
  quota: QuotaState;
}

export class ReleaseCreditsCommand extends ReservationReference {}

export interface ReleaseCreditsReply {
  client_id: string;
  released: boolean;
  quota: QuotaState;
}
