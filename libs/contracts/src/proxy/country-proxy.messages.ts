import { ApiProperty } from '@nestjs/swagger';
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

/** Spec 2.16 country request response. */
export class RequestCountryReply {
  @ApiProperty()
  client_id: string;
  @ApiProperty({ example: 'DE' })
  country_code: string;
  /** pending (an administrator reviews) or already_approved. */
  @ApiProperty({ enum: ['pending', 'already_approved'] })
  status: 'pending' | 'already_approved';
  @ApiProperty()
  message: string;
}

/** A refused country request, with the reviewer's note. */
export class DeniedCountry {
  @ApiProperty({ example: 'DE' })
  country_code: string;
  @ApiProperty({ type: String, nullable: true })
  note: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  decided_at: string | null;
}

/** Spec 2.16 proxy status. */
export class ProxyStatusReply {
  @ApiProperty()
  client_id: string;
  @ApiProperty({ type: [String] })
  approved_countries: string[];
  @ApiProperty({ type: [String] })
  pending_countries: string[];
  /** Not named by the spec ("the status endpoint also mentions a denied outcome"): refusals with their note. */
  @ApiProperty({ type: [DeniedCountry], description: "Not in the spec: refusals with the reviewer's note." })
  denied_countries: DeniedCountry[];
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
}

export class ProxyCountryName {
  @ApiProperty({ example: 'DE' })
  code: string;
  @ApiProperty({ example: 'Germany' })
  name: string;
}

/** Spec 2.16 countries response, with English names beside the codes. */
export class ProxyCountriesReply {
  @ApiProperty({ type: [String], description: 'ISO 3166-1 alpha-2 codes.' })
  countries: string[];
  @ApiProperty({ type: [ProxyCountryName] })
  details: ProxyCountryName[];
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
}

export class ListCountryRequestsQuery {
  @IsIn([...COUNTRY_REQUEST_STATUSES, 'all'])
  status: CountryRequestStatus | 'all';
}

export class CountryRequestView {
  @ApiProperty()
  client_id: string;
  @ApiProperty({ example: 'DE' })
  country_code: string;
  @ApiProperty({ enum: COUNTRY_REQUEST_STATUSES })
  status: CountryRequestStatus;
  @ApiProperty({ type: String, nullable: true })
  reason: string | null;
  @ApiProperty({ type: String, nullable: true })
  note: string | null;
  @ApiProperty({ format: 'date-time' })
  requested_at: string;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  decided_at: string | null;
  @ApiProperty({ type: String, nullable: true })
  decided_by: string | null;
}

export class CountryRequestList {
  @ApiProperty({ type: [CountryRequestView] })
  items: CountryRequestView[];
  @ApiProperty({ type: 'integer' })
  total: number;
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
