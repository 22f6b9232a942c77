import { IsString, Length } from 'class-validator';
import { RunReference } from '../batch/collection.messages';

export class WebhookSecretQuery {
  @IsString()
  @Length(1, 128)
  client_id: string;
}

/** Operator contract §4: `whsec_…`, one per client. */
export interface WebhookSecretReply {
  secret: string;
}

/** The delivery log and redelivery of one run's webhook. */
export class RunDeliveriesReference extends RunReference {}

export interface WebhookDeliveryAttempt {
  attempt: number;
  /** True for an attempt the client asked for (redeliver). */
  manual: boolean;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  /** sent | failed (a retry follows) | failed_final | blocked (the callback_url is not public). */
  outcome: string;
}

export interface WebhookDeliveryLog {
  delivery_id: string;
  run_id: string;
  callback_url: string;
  /** The run's callback_status: pending | sent | failed | retrying. */
  status: string;
  next_attempt_at: string | null;
  attempts: WebhookDeliveryAttempt[];
}
