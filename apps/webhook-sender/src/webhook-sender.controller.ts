import {
  BatchDeliveriesReference,
  CrawlDeliveriesQuery,
  CrawlDeliveryReference,
  CrawlWebhookDeliveries,
  RunDeliveriesReference,
  SUBJECTS,
  WebhookDeliveryLog,
  WebhookSecretQuery,
  WebhookSecretReply,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CrawlDeliveryListing } from './crawl-deliveries/crawl-delivery-listing';
import { DeliveryLog } from './delivery-log/delivery-log';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { SigningSecrets } from './signing-secrets/signing-secrets';

/** Message adapter of webhook-sender: secrets, the delivery logs and a crawl's delivery listing for the gateway. */
@Controller()
export class WebhookSenderController {
  constructor(
    private readonly secrets: SigningSecrets,
    private readonly log: DeliveryLog,
    private readonly dispatcher: WebhookDispatcher,
    private readonly crawlDeliveries: CrawlDeliveryListing,
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

  @MessagePattern(SUBJECTS.webhooks.crawlDeliveries)
  crawlDeliveryListing(@Payload() query: CrawlDeliveriesQuery): Promise<CrawlWebhookDeliveries> {
    return this.crawlDeliveries.list(query);
  }

  @MessagePattern(SUBJECTS.webhooks.crawlDelivery)
  crawlDelivery(@Payload() ref: CrawlDeliveryReference): Promise<WebhookDeliveryLog> {
    return this.log.of(ref);
  }

  @MessagePattern(SUBJECTS.webhooks.crawlRedeliver)
  async crawlRedeliver(@Payload() ref: CrawlDeliveryReference): Promise<WebhookDeliveryLog> {
    const log = await this.log.redeliver(ref);
    this.dispatcher.nudge();
    return log;
  }
}
