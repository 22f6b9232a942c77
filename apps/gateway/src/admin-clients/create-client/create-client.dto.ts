import { FEATURES, PLAN_IDS } from '@lib/plans';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayUnique, IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

export class CreateClientDto {
  @ApiPropertyOptional({
    description: 'Your id for the client; generated when omitted.',
    pattern: '^[A-Za-z0-9._-]{1,64}$',
    example: 'acme',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'client_id must be 1-64 characters of letters, digits, ".", "_" or "-"' })
  client_id?: string;

  @ApiProperty({ enum: PLAN_IDS })
  @IsIn(PLAN_IDS)
  plan: string;

  @ApiPropertyOptional({ enum: FEATURES, isArray: true, uniqueItems: true, description: "Feature flags; default: the plan's features." })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(FEATURES, { each: true })
  features?: string[];

  @ApiPropertyOptional({ type: 'integer', description: "Override of the plan's requests per minute (enterprise: custom).", minimum: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  rate_limit_per_minute?: number;

  @ApiPropertyOptional({ type: 'integer', description: "Override of the plan's monthly credits.", minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  monthly_credits?: number;
}

export class CreatedClientDto {
  @ApiProperty()
  client_id: string;
  @ApiProperty({ enum: PLAN_IDS })
  plan: string;
  @ApiProperty({ description: 'The bearer token. Shown only in this response; only its hash is stored.' })
  token: string;
}
