import { COUNTRY_REQUEST_STATUSES } from '@lib/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';

const upper = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toUpperCase() : value);

export class RequestCountryBody {
  @ApiProperty({ example: 'DE', description: 'ISO 3166-1 alpha-2 (GET /v1/proxy/countries).' })
  @Transform(upper)
  @IsString()
  @Matches(/^[A-Z]{2}$/, { message: 'country_code must be an ISO 3166-1 alpha-2 code, e.g. DE.' })
  country_code: string;

  @ApiPropertyOptional({ description: 'Why the client needs the pool (shown to the reviewer).' })
  @IsOptional()
  @IsString()
  @Length(0, 2000)
  reason?: string;
}

export class CountryRequestsQuery {
  @ApiPropertyOptional({ enum: [...COUNTRY_REQUEST_STATUSES, 'all'], default: 'pending' })
  @IsOptional()
  @IsIn([...COUNTRY_REQUEST_STATUSES, 'all'])
  status?: (typeof COUNTRY_REQUEST_STATUSES)[number] | 'all';
}

export class DecisionBody {
  @ApiProperty({ enum: ['approve', 'deny'] })
  @IsIn(['approve', 'deny'])
  decision: 'approve' | 'deny';

  @ApiPropertyOptional({ description: 'Shown to the client in GET /v1/proxy/status (denied_countries).' })
  @IsOptional()
  @IsString()
  @Length(0, 2000)
  note?: string;
}
