import { IsInt, IsOptional, IsString, Length, Min } from 'class-validator';

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
}

export class QuotaQuery {
  @IsString()
  @Length(1, 128)
  client_id: string;

  /** The client's monthly credits as the gateway resolved them; null = unlimited. */
  @IsOptional()
  @IsInt()
  @Min(0)
  monthly_credits: number | null;
}
