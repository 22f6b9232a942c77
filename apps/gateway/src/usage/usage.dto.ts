import { PLATFORM_METRICS } from '@lib/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { queryBoolean } from '../http-errors/query-boolean';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';

export class BillingQueryDto {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ example: '2026-11', description: 'YYYY-MM (UTC); default the current month.' })
  @IsOptional()
  @Matches(/^\d{4}-(0[1-9]|1[0-2])$/, { message: 'month must be YYYY-MM, e.g. 2026-11.' })
  month?: string;

  @ApiPropertyOptional({ description: 'Administrators: one client (default all). Others: only their own id.' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  client?: string;

  @ApiPropertyOptional({ enum: ['urls'] })
  @IsOptional()
  @IsIn(['urls'], { message: 'detail must be "urls".' })
  detail?: 'urls';
}

export class ClientMetricsQueryDto {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ description: 'YYYY-MM-DD, a range YYYY-MM-DD:YYYY-MM-DD, or a month YYYY-MM; default today (UTC).' })
  @IsOptional()
  @IsString()
  @Length(7, 21)
  date?: string;

  @ApiPropertyOptional({ description: 'Administrators: any client. Others: only their own id.' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  client?: string;

  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Adds 24 hourly buckets per day.' })
  @IsOptional()
  @Transform(queryBoolean)
  @IsIn([true, false], { message: 'hourly must be true or false.' })
  hourly?: boolean;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'Adds every day of the period by mode (simple, browser): a chart by day and mode.',
  })
  @IsOptional()
  @Transform(queryBoolean)
  @IsIn([true, false], { message: 'daily must be true or false.' })
  daily?: boolean;

  @ApiPropertyOptional({ enum: ['urls'] })
  @IsOptional()
  @IsIn(['urls'], { message: 'detail must be "urls".' })
  detail?: 'urls';
}

export class PlatformMetricsQueryDto {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ description: 'YYYY-MM-DD or a range YYYY-MM-DD:YYYY-MM-DD; default today (UTC).' })
  @IsOptional()
  @IsString()
  @Length(0, 21)
  date?: string;

  @ApiPropertyOptional({ enum: PLATFORM_METRICS, description: 'One metric; empty or absent = all of them.' })
  @IsOptional()
  @IsIn([...PLATFORM_METRICS, ''], { message: `metric must be one of ${PLATFORM_METRICS.join(', ')}.` })
  metric?: string;
}
