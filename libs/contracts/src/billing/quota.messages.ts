import { IsInt, IsOptional, IsString, Length, Matches, Min } from 'class-validator';

/** A client's credit quota for the current UTC month. `limit` null = unlimited. */
export interface QuotaState {
  month: string;
  limit: number | null;
  /** Charged credits plus credits held by open reservations. */
  used: number;
  /** null when unlimited. */
  remaining: number | null;
  /** Unix seconds when the month (and the quota) resets. */
  resets_at: number;
  /** Epoch ms when billing-meter computed it; caches keep the newest. */
  as_of: number;
}

/** Whose credits, and the monthly limit the gateway resolved for them (null = unlimited). */
export class ClientCreditScope {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  monthly_credits: number | null;
}

export class QuotaQuery extends ClientCreditScope {}

/** Published by billing-meter whenever a client's used credits change; gateways cache it. */
export class QuotaChangedEvent {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @Matches(/^\d{4}-\d{2}$/)
  month: string;

  @IsInt()
  @Min(0)
  used: number;

  @IsInt()
  resets_at: number;

  /** Epoch ms when billing-meter computed `used`; a cache keeps the newest. */
  @IsInt()
  as_of: number;
}
