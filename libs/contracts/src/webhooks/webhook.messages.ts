import { ApiProperty } from '@nestjs/swagger';
import { IsString, IsUUID, Length } from 'class-validator';
import { RunReference } from '../batch/collection.messages';

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

/** The delivery log and redelivery of one run's webhook. */
export class RunDeliveriesReference extends RunReference {}

/** The delivery log and redelivery of one batch's webhook (spec 4.8's batches). */
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
