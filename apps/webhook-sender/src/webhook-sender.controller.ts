import {
  BatchDeliveriesReference,
  RunDeliveriesReference,
  SUBJECTS,
  WebhookDeliveryLog,
  WebhookSecretQuery,
  WebhookSecretReply,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DeliveryLog } from './delivery-log/delivery-log';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { SigningSecrets } from './signing-secrets/signing-secrets';

/** Message adapter of webhook-sender: secrets and the delivery log for the gateway. */
@Controller()
export class WebhookSenderController {
  constructor(
    private readonly secrets: SigningSecrets,
    private readonly log: DeliveryLog,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  @MessagePattern(SUBJECTS.webhooks.secret)
  async secret(@Payload() query: WebhookSecretQuery): Promise<WebhookSecretReply> {
    return { secret: await this.secrets.of(query.client_id) };
  }

  @MessagePattern(SUBJECTS.webhooks.rotateSecret)
  async rotate(@Payload() query: WebhookSecretQuery): Promise<WebhookSecretReply> {
    return { secret: await this.secrets.rotate(query.client_id) };
  }

  @MessagePattern(SUBJECTS.webhooks.deliveries)
  deliveries(@Payload() ref: RunDeliveriesReference): Promise<WebhookDeliveryLog> {
    return this.log.of(ref);
  }

  @MessagePattern(SUBJECTS.webhooks.redeliver)
  async redeliver(@Payload() ref: RunDeliveriesReference): Promise<WebhookDeliveryLog> {
    const log = await this.log.redeliver(ref);
    this.dispatcher.nudge();
    return log;
  }

  @MessagePattern(SUBJECTS.webhooks.batchDeliveries)
  batchDeliveries(@Payload() ref: BatchDeliveriesReference): Promise<WebhookDeliveryLog> {
    return this.log.of(ref);
  }

  @MessagePattern(SUBJECTS.webhooks.batchRedeliver)
  async batchRedeliver(@Payload() ref: BatchDeliveriesReference): Promise<WebhookDeliveryLog> {
    const log = await this.log.redeliver(ref);
    this.dispatcher.nudge();
    return log;
  }
}
