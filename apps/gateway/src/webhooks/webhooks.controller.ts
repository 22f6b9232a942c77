import { SUBJECTS, WebhookDeliveryLog, WebhookSecretReply } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { COLLECTION_ID, RUN_ID } from '../resource-ids/resource-id.pipe';
import { Fails, Returns } from '../openapi/operation-contract';

@ApiTags('webhooks')
@ApiBearerAuth()
@Controller('v1')
export class WebhooksController {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  @Get('webhooks/secret')
  @Access('client')
  @ApiOperation({
    summary: "The client's webhook signing secret, created on first call (operator contract §4).",
    description:
      'Every webhook carries X-Service-Timestamp (Unix seconds) and X-Service-Signature: sha256=<hex HMAC-SHA256(secret, "{timestamp}.{raw body}")>. Reject timestamps older than 5 minutes.',
  })
  @Returns(200, WebhookSecretReply, { description: 'The signing secret.' })
  secret(@Caller() caller: AdmittedCall): Promise<WebhookSecretReply> {
    return this.bus.request(SUBJECTS.webhooks.secret, { client_id: caller.client.id });
  }

  @Post('webhooks/secret/rotate')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({ summary: 'Replace the signing secret; every delivery attempt from now on is signed with the new one.' })
  @Returns(200, WebhookSecretReply, { description: 'The new signing secret.' })
  rotate(@Caller() caller: AdmittedCall): Promise<WebhookSecretReply> {
    return this.bus.request(SUBJECTS.webhooks.rotateSecret, { client_id: caller.client.id });
  }

  @Get('async/collections/:collection_id/runs/:run_id/webhook-deliveries')
  @Access('client')
  @ApiOperation({
    summary: "The delivery log of the run's completion webhook (not in the spec).",
    description:
      "{delivery_id (= X-Service-Delivery-Id), run_id, callback_url, status (the run's callback_status), next_attempt_at, attempts: [{attempt, manual, attempted_at, status_code, error, latency_ms, outcome: sent | failed (a retry follows) | failed_final | blocked}]}.",
  })
  @Returns(200, WebhookDeliveryLog, { description: 'The delivery log.' })
  @Fails('webhook.not_found', 'collection.not_found', 'run.not_found')
  deliveries(
    @Param('collection_id', COLLECTION_ID) collectionId: string,
    @Param('run_id', RUN_ID) runId: string,
    @Caller() caller: AdmittedCall,
  ): Promise<WebhookDeliveryLog> {
    return this.bus.request(SUBJECTS.webhooks.runDeliveries.get, {
      client_id: caller.client.id,
      run_id: runId,
      kind: 'collection',
      collection_id: collectionId,
    });
  }

  @Post('async/collections/:collection_id/runs/:run_id/webhook-deliveries/redeliver')
  @HttpCode(202)
  @Access('client')
  @ApiOperation({
    summary:
      "Send the run's completion webhook again now (not in the spec): one attempt, same X-Service-Delivery-Id, signed with the current secret; it replaces any remaining retry schedule.",
  })
  @Returns(202, WebhookDeliveryLog, { description: 'The attempt was made; the log includes it.' })
  @Fails('webhook.not_found', 'webhook.delivery_in_progress', 'collection.not_found', 'run.not_found')
  redeliver(
    @Param('collection_id', COLLECTION_ID) collectionId: string,
    @Param('run_id', RUN_ID) runId: string,
    @Caller() caller: AdmittedCall,
  ): Promise<WebhookDeliveryLog> {
    return this.bus.request(SUBJECTS.webhooks.runDeliveries.redeliver, {
      client_id: caller.client.id,
      run_id: runId,
      kind: 'collection',
      collection_id: collectionId,
    });
  }
}
