import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Length, Max, MaxLength, Min } from 'class-validator';
import { RunReference } from '../batch/collection.messages';
import { RUN_KINDS, type RunKind } from '../batch/run-kinds';

export class WebhookSecretQuery {
  @IsString()
  @Length(1, 128)
  client_id: string;
}

/** Operator contract §4: `whsec_…`, one per client. */
export class WebhookSecretReply {
  @ApiProperty({ example: 'whsec_3q2+7w…' })
  secret: string;
}

/**
 * One webhook of a run, of any kind: with `delivery_id`, that delivery (a crawl's `crawl.page`, say);
 * without, the run's own, its completion. `kind` and `collection_id` scope it as the client's route
 * does: a batch's id asked for as a collection's run finds nothing.
 */
export class RunWebhookReference extends WebhookSecretQuery {
  @IsUUID()
  run_id: string;

  @IsIn(RUN_KINDS)
  kind: RunKind;

  @IsOptional()
  @IsUUID()
  collection_id?: string;

  @IsOptional()
  @IsUUID()
  delivery_id?: string;
}

/** The former (previous release) reference of a collection run's webhook. */
export class RunDeliveriesReference extends RunReference {}

/** The former (previous release) reference of a batch's webhook (spec 4.8's batches). */
export class BatchDeliveriesReference extends WebhookSecretQuery {
  @IsUUID()
  batch_id: string;
}

export class WebhookDeliveryAttempt {
  @ApiProperty({ type: 'integer' })
  attempt: number;
  /** True for an attempt the client asked for (redeliver). */
  @ApiProperty({ description: 'True for an attempt the client asked for (redeliver).' })
  manual: boolean;
  @ApiProperty({ format: 'date-time' })
  attempted_at: string;
  @ApiProperty({ type: 'integer', nullable: true })
  status_code: number | null;
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
  @ApiProperty({ type: 'integer' })
  latency_ms: number;
  /** sent | failed (a retry follows) | failed_final | blocked (the callback_url is not public). */
  @ApiProperty({
    enum: ['sent', 'failed', 'failed_final', 'blocked'],
    description: 'failed: a retry follows; blocked: the callback_url is not public.',
  })
  outcome: string;
}

export class WebhookDeliveryLog {
  @ApiProperty({ description: 'Also sent as X-Service-Delivery-Id.' })
  delivery_id: string;
  @ApiProperty({ format: 'uuid' })
  run_id: string;
  @ApiProperty()
  callback_url: string;
  /** The run's callback_status: pending | sent | failed | retrying. */
  @ApiProperty({ enum: ['pending', 'sent', 'failed', 'retrying'], description: "The run's callback_status." })
  status: string;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  next_attempt_at: string | null;
  @ApiProperty({ type: [WebhookDeliveryAttempt] })
  attempts: WebhookDeliveryAttempt[];
}

/** A crawl's webhooks (issue 39): the `crawl.page` deliveries and the `crawl.completed` one. */
export const CRAWL_DELIVERY_LISTING = { defaultLimit: 100, maxLimit: 1000 } as const;

/** Where a page of a delivery listing starts and how long it is. */
class DeliveryPageQuery extends WebhookSecretQuery {
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  cursor?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CRAWL_DELIVERY_LISTING.maxLimit)
  limit?: number;
}

/** One page of a run's deliveries, oldest first (the crawl routes list them). */
export class RunDeliveriesQuery extends DeliveryPageQuery {
  @IsUUID()
  run_id: string;
}

/** The former (previous release) query of a crawl's deliveries. */
export class CrawlDeliveriesQuery extends DeliveryPageQuery {
  @IsUUID()
  crawl_id: string;
}

/** The former (previous release) reference of one delivery of a crawl's. */
export class CrawlDeliveryReference extends WebhookSecretQuery {
  @IsUUID()
  crawl_id: string;

  @IsUUID()
  delivery_id: string;
}

export class CrawlWebhookDelivery {
  @ApiProperty({ format: 'uuid', description: 'Also sent as X-Service-Delivery-Id.' })
  delivery_id: string;
  @ApiProperty({ enum: ['crawl.page', 'crawl.completed'] })
  event: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The page’s job (crawl.page); null for crawl.completed.' })
  job_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The page’s URL (crawl.page); null for crawl.completed.' })
  url: string | null;
  @ApiProperty({ enum: ['pending', 'sent', 'failed', 'retrying'] })
  status: string;
  @ApiProperty({ type: 'integer', description: 'Attempts made so far.' })
  attempts: number;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  next_attempt_at: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The last attempt’s HTTP status, if the receiver answered.' })
  last_status_code: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'The last attempt’s error, if it was not answered.' })
  last_error: string | null;
  @ApiProperty({ format: 'date-time', description: 'When the page (or the crawl) ended and the webhook was written.' })
  created_at: string;
}

export class CrawlWebhookDeliveries {
  @ApiProperty({ type: [CrawlWebhookDelivery] })
  items: CrawlWebhookDelivery[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last page.' })
  cursor_next: string | null;
  @ApiProperty()
  has_more: boolean;
}
