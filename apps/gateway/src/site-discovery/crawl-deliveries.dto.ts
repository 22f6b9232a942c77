import { CRAWL_DELIVERY_LISTING } from '@lib/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

/** GET /v1/crawl/{crawl_id}/webhook-deliveries. */
export class CrawlDeliveryListQuery {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ description: 'cursor_next of the previous page; omit on the first call.' })
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  cursor?: string;

  @ApiPropertyOptional({ default: CRAWL_DELIVERY_LISTING.defaultLimit, minimum: 1, maximum: CRAWL_DELIVERY_LISTING.maxLimit })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CRAWL_DELIVERY_LISTING.maxLimit)
  limit?: number;
}
