import { CrawlWebhookDeliveries, SUBJECTS, WebhookDeliveryLog } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { CRAWL_ID, DELIVERY_ID } from '../resource-ids/resource-id.pipe';
import { Fails, Returns, ValidationStatus } from '../openapi/operation-contract';
import { CrawlDeliveryListQuery } from './crawl-deliveries.dto';
import { SiteDiscoveryCalls } from './site-discovery.calls';

/**
 * A crawl's webhooks (issue 39): the `crawl.page` deliveries (when the crawl asked for them) and
 * its `crawl.completed`, each with its delivery state, its attempts and redelivery. docs/crawl.md.
 */
@ApiTags('discovery')
@ApiBearerAuth()
@Controller('v1/crawl/:crawl_id/webhook-deliveries')
export class CrawlWebhooksController {
  constructor(
    private readonly calls: SiteDiscoveryCalls,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  @Get()
  @Access('client')
  @ApiOperation({
    summary:
      "A crawl's webhooks, oldest first: one crawl.page per page that ended (with page_webhooks) and its crawl.completed, each with status (pending | sent | failed | retrying), attempts, the last answer and next_attempt_at.",
  })
  @Returns(200, CrawlWebhookDeliveries, { description: 'One page of the deliveries; follow cursor_next while has_more.' })
  @ValidationStatus(400)
  @Fails('discovery.crawl_not_found', 'webhook.invalid_cursor')
  async list(
    @Param('crawl_id', CRAWL_ID) crawlId: string,
    @Query() query: CrawlDeliveryListQuery,
    @Caller() caller: AdmittedCall,
  ): Promise<CrawlWebhookDeliveries> {
    // The crawl's own lookup: an unknown (or another client's) crawl is a 404, not an empty list.
    await this.calls.crawl(crawlId, caller);
    return this.bus.request(
      SUBJECTS.webhooks.runDeliveries.list,
      { client_id: caller.client.id, run_id: crawlId, cursor: query.cursor, limit: query.limit },
      { correlationId: caller.requestId },
    );
  }

  @Get(':delivery_id')
  @Access('client')
  @ApiOperation({ summary: "One of a crawl's webhooks: its delivery log, every attempt with its answer or error." })
  @Returns(200, WebhookDeliveryLog, { description: 'The delivery log.' })
  @Fails('webhook.not_found', 'discovery.crawl_not_found')
  delivery(
    @Param('crawl_id', CRAWL_ID) crawlId: string,
    @Param('delivery_id', DELIVERY_ID) deliveryId: string,
    @Caller() caller: AdmittedCall,
  ): Promise<WebhookDeliveryLog> {
    return this.bus.request(
      SUBJECTS.webhooks.runDeliveries.get,
      { client_id: caller.client.id, run_id: crawlId, kind: 'crawl', delivery_id: deliveryId },
      { correlationId: caller.requestId },
    );
  }

  @Post(':delivery_id/redeliver')
  @HttpCode(202)
  @Access('client')
  @ApiOperation({
    summary:
      "Send one of a crawl's webhooks again now: one attempt, same X-Service-Delivery-Id, signed with the current secret; it replaces any remaining retry schedule.",
  })
  @Returns(202, WebhookDeliveryLog, { description: 'The attempt is due now; the log so far.' })
  @Fails('webhook.not_found', 'webhook.delivery_in_progress', 'discovery.crawl_not_found')
  redeliver(
    @Param('crawl_id', CRAWL_ID) crawlId: string,
    @Param('delivery_id', DELIVERY_ID) deliveryId: string,
    @Caller() caller: AdmittedCall,
  ): Promise<WebhookDeliveryLog> {
    return this.bus.request(
      SUBJECTS.webhooks.runDeliveries.redeliver,
      { client_id: caller.client.id, run_id: crawlId, kind: 'crawl', delivery_id: deliveryId },
      { correlationId: caller.requestId },
    );
  }
}
