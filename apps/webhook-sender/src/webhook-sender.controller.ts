import {
  BatchDeliveriesReference,
  CrawlDeliveriesQuery,
  CrawlDeliveryReference,
  CrawlWebhookDeliveries,
  RunDeliveriesQuery,
  RunDeliveriesReference,
  RunWebhookReference,
  SUBJECTS,
  WebhookDeliveryLog,
  WebhookSecretQuery,
  WebhookSecretReply,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RunDeliveryListing } from './run-deliveries/run-delivery-listing';
import { DeliveryLog } from './delivery-log/delivery-log';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { SigningSecrets } from './signing-secrets/signing-secrets';

const FORMER = SUBJECTS.webhooks.formerDeliveries;

/** Message adapter of webhook-sender: secrets, and every run's webhooks (its own, one delivery, the listing) for the gateway. */
@Controller()
export class WebhookSenderController {
  constructor(
    private readonly secrets: SigningSecrets,
    private readonly log: DeliveryLog,
    private readonly dispatcher: WebhookDispatcher,
    private readonly listing: RunDeliveryListing,
  ) {}

  @MessagePattern(SUBJECTS.webhooks.secret)
  async secret(@Payload() query: WebhookSecretQuery): Promise<WebhookSecretReply> {
    return { secret: await this.secrets.of(query.client_id) };
  }

  @MessagePattern(SUBJECTS.webhooks.rotateSecret)
  async rotate(@Payload() query: WebhookSecretQuery): Promise<WebhookSecretReply> {
    return { secret: await this.secrets.rotate(query.client_id) };
  }

  @MessagePattern(SUBJECTS.webhooks.runDeliveries.get)
  delivery(@Payload() ref: RunWebhookReference): Promise<WebhookDeliveryLog> {
    return this.log.of(ref);
  }

  @MessagePattern(SUBJECTS.webhooks.runDeliveries.redeliver)
  async redeliver(@Payload() ref: RunWebhookReference): Promise<WebhookDeliveryLog> {
    const log = await this.log.redeliver(ref);
    this.dispatcher.nudge();
    return log;
  }

  @MessagePattern(SUBJECTS.webhooks.runDeliveries.list)
  deliveries(@Payload() query: RunDeliveriesQuery): Promise<CrawlWebhookDeliveries> {
    return this.listing.list(query);
  }

  // The previous release's per-kind subjects (decision 0036): a gateway of that release still asks
  // them during a rolling upgrade. Each is the same question in the run model's words.

  @MessagePattern(FORMER.collectionRun)
  formerCollectionRun(@Payload() ref: RunDeliveriesReference): Promise<WebhookDeliveryLog> {
    return this.delivery({ client_id: ref.client_id, run_id: ref.run_id, kind: 'collection', collection_id: ref.collection_id });
  }

  @MessagePattern(FORMER.collectionRunRedeliver)
  formerCollectionRunRedeliver(@Payload() ref: RunDeliveriesReference): Promise<WebhookDeliveryLog> {
    return this.redeliver({ client_id: ref.client_id, run_id: ref.run_id, kind: 'collection', collection_id: ref.collection_id });
  }

  @MessagePattern(FORMER.batch)
  formerBatch(@Payload() ref: BatchDeliveriesReference): Promise<WebhookDeliveryLog> {
    return this.delivery({ client_id: ref.client_id, run_id: ref.batch_id, kind: 'batch' });
  }

  @MessagePattern(FORMER.batchRedeliver)
  formerBatchRedeliver(@Payload() ref: BatchDeliveriesReference): Promise<WebhookDeliveryLog> {
    return this.redeliver({ client_id: ref.client_id, run_id: ref.batch_id, kind: 'batch' });
  }

  @MessagePattern(FORMER.crawlList)
  formerCrawlList(@Payload() query: CrawlDeliveriesQuery): Promise<CrawlWebhookDeliveries> {
    return this.deliveries({ client_id: query.client_id, run_id: query.crawl_id, cursor: query.cursor, limit: query.limit });
  }

  @MessagePattern(FORMER.crawlDelivery)
  formerCrawlDelivery(@Payload() ref: CrawlDeliveryReference): Promise<WebhookDeliveryLog> {
    return this.delivery({ client_id: ref.client_id, run_id: ref.crawl_id, kind: 'crawl', delivery_id: ref.delivery_id });
  }

  @MessagePattern(FORMER.crawlRedeliver)
  formerCrawlRedeliver(@Payload() ref: CrawlDeliveryReference): Promise<WebhookDeliveryLog> {
    return this.redeliver({ client_id: ref.client_id, run_id: ref.crawl_id, kind: 'crawl', delivery_id: ref.delivery_id });
  }
}
