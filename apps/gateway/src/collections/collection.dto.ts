import { JOB_ORDERS, JOB_PAGE_LIMITS, JOB_STATUSES, MAX_COLLECTION_REQUESTS, RUN_STATUSES, SyncScrapeRequest } from '@lib/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { queryBoolean } from '../http-errors/query-boolean';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateIf } from 'class-validator';

export const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Epoch ms of an ISO 8601 time; a time without a zone is UTC (spec 4.5). */
export function isoToEpochMs(value: string): number {
  const [, date, rest = ''] = /^(\d{4}-\d{2}-\d{2})(.*)$/.exec(value) ?? [];
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(rest) ? rest : `${rest || 'T00:00:00'}Z`;
  return Date.parse(`${date}${zoned.replace(/(\.\d{3})\d+/, '$1')}`);
}

/** Spec 2.11. Validation problems of the body are answered 400 (spec 4.3). */
export class CollectionBody {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ default: 'New Collection', maxLength: 500 })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  name?: string;

  @ApiPropertyOptional({
    type: SyncScrapeRequest,
    isArray: true,
    nullable: true,
    maxItems: MAX_COLLECTION_REQUESTS,
    description:
      'Scrape requests (spec 2.1); each is validated on its own: a bad item is reported in invalid_items or blocked_urls, not refused with the body.',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsArray()
  @ArrayMaxSize(MAX_COLLECTION_REQUESTS, { message: `A collection holds at most ${MAX_COLLECTION_REQUESTS} requests.` })
  requests?: unknown[] | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'POSTed when a run completes.' })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @Length(1, 2048)
  @Matches(/^https?:\/\//i, { message: 'callback_url must be an http or https URL.' })
  callback_url?: string | null;
}

export class CollectionListQuery {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ description: 'Exact name.' })
  @IsOptional()
  @IsString()
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  name_prefix?: string;

  @ApiPropertyOptional({ description: 'ISO 8601; collections created at or after it (legacy rows without created_at excluded).' })
  @IsOptional()
  @IsString()
  @Matches(ISO_TIME, { message: 'since must be an ISO 8601 date or time.' })
  since?: string;
}

export class RunListQuery {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ enum: RUN_STATUSES })
  @IsOptional()
  @IsIn(RUN_STATUSES, { message: `status_filter must be one of ${RUN_STATUSES.join(', ')}.` })
  status_filter?: (typeof RUN_STATUSES)[number];
}

export class JobListQuery {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ description: 'cursor_next of the previous page; omit on the first call.' })
  @IsOptional()
  @IsString()
  @Length(1, 2000)
  cursor?: string;

  @ApiPropertyOptional({
    default: JOB_PAGE_LIMITS.default,
    minimum: 1,
    maximum: JOB_PAGE_LIMITS.max,
    description: 'Capped at 100 with include_results.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(JOB_PAGE_LIMITS.max)
  limit?: number;

  @ApiPropertyOptional({ description: `One of ${JOB_STATUSES.join(', ')}, or a comma-separated list.` })
  @IsOptional()
  @IsString()
  @Matches(new RegExp(`^(${JOB_STATUSES.join('|')})(,(${JOB_STATUSES.join('|')}))*$`), {
    message: `status_filter must be one or more of ${JOB_STATUSES.join(', ')}, comma-separated.`,
  })
  status_filter?: string;

  @ApiPropertyOptional({ description: 'ISO 8601 (Z, +00:00 or no zone = UTC); rows completed strictly later.' })
  @IsOptional()
  @IsString()
  @Matches(ISO_TIME, { message: 'since_completed_at must be an ISO 8601 time.' })
  since_completed_at?: string;

  @ApiPropertyOptional({ enum: JOB_ORDERS, default: 'id' })
  @IsOptional()
  @IsIn(JOB_ORDERS)
  order_by?: (typeof JOB_ORDERS)[number];

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'asc', description: 'Honoured for order_by=completed_at only.' })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order_dir?: 'asc' | 'desc';

  @ApiPropertyOptional({ type: Boolean, default: false })
  @IsOptional()
  @Transform(queryBoolean)
  @IsIn([true, false], { message: 'include_results must be true or false.' })
  include_results?: boolean;
}
