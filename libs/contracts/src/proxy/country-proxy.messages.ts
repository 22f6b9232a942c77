import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';

export const COUNTRY_REQUEST_STATUSES = ['pending', 'approved', 'denied'] as const;
export type CountryRequestStatus = (typeof COUNTRY_REQUEST_STATUSES)[number];

export class ProxyClientReference {
  @IsString()
  @Length(1, 128)
  client_id: string;
}

export class CountryReference extends ProxyClientReference {
  @Matches(/^[A-Z]{2}$/)
  country_code: string;
}

export class RequestCountryCommand extends CountryReference {
  @IsOptional()
  @IsString()
  @Length(0, 2000)
  reason?: string;
}

export interface RequestCountryReply {
  client_id: string;
  country_code: string;
  /** pending (an administrator reviews) or already_approved. */
  status: 'pending' | 'already_approved';
  message: string;
}

export interface ProxyStatusReply {
  client_id: string;
  approved_countries: string[];
  pending_countries: string[];
  /** Not named by the spec ("the status endpoint also mentions a denied outcome"): refusals with their note. */
  denied_countries: Array<{ country_code: string; note: string | null; decided_at: string | null }>;
  error: string | null;
}

export class ListCountryRequestsQuery {
  @IsIn([...COUNTRY_REQUEST_STATUSES, 'all'])
  status: CountryRequestStatus | 'all';
}

export interface CountryRequestView {
  client_id: string;
  country_code: string;
  status: CountryRequestStatus;
  reason: string | null;
  note: string | null;
  requested_at: string;
  decided_at: string | null;
  decided_by: string | null;
}

export class DecideCountryRequestCommand extends CountryReference {
  @IsIn(['approve', 'deny'])
  decision: 'approve' | 'deny';

  @IsOptional()
  @IsString()
  @Length(0, 2000)
  note?: string;

  @IsString()
  @Length(1, 128)
  decided_by: string;
}
