import { SUBJECTS, WebhookDeliveryLog, WebhookSecretReply } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Access } from '../admission/route-access';
import { COLLECTION_ID, RUN_ID } from '../batches/resource-id.pipe';

@ApiTags('webhooks')
@ApiBearerAuth()
@Controller('v1')
export class WebhooksController {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  @Get('webhooks/secret')
  @Access('client')
  @ApiOperation({
    summary: 'The client\'s webhook signing secret, created on first call (operator contract §4).',
    description: 'Every webhook carries X-Service-Timestamp (Unix seconds) and X-Service-Signature: sha256=<hex HMAC-SHA256(secret, "{timestamp}.{raw body}")>. Reject timestamps older than 5 minutes.',
  })
  @ApiOkResponse({ schema: { properties: { secret: { type: 'string', example: 'whsec_…' } } } })
  secret(@Req() request: FastifyRequest): Promise<WebhookSecretReply> {
    return this.bus.request(SUBJECTS.webhooks.secret, { client_id: request.admission.client!.id }, { correlationId: request.admission.requestId });
  }

  @Post('webhooks/secret/rotate')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({ summary: 'Replace the signing secret; every delivery attempt from now on is signed with the new one.' })
  rotate(@Req() request: FastifyRequest): Promise<WebhookSecretReply> {
    return this.bus.request(SUBJECTS.webhooks.rotateSecret, { client_id: request.admission.client!.id }, { correlationId: request.admission.requestId });
  }

  @Get('async/collections/:collection_id/runs/:run_id/webhook-deliveries')
  @Access('client')
  @ApiOperation({
    summary: 'The delivery log of the run\'s completion webhook (not in the spec).',
    description:
      '{delivery_id (= X-Service-Delivery-Id), run_id, callback_url, status (the run\'s callback_status), next_attempt_at, attempts: [{attempt, manual, attempted_at, status_code, error, latency_ms, outcome: sent | failed (a retry follows) | failed_final | blocked}]}.',
  })
  @ApiNotFoundResponse({ description: 'The run has no webhook (no callback_url, not completed, unknown): webhook_not_found.' })
  deliveries(@Param('collection_id', COLLECTION_ID) collectionId: string, @Param('run_id', RUN_ID) runId: string, @Req() request: FastifyRequest): Promise<WebhookDeliveryLog> {
    return this.bus.request(SUBJECTS.webhooks.deliveries, { client_id: request.admission.client!.id, collection_id: collectionId, run_id: runId }, { correlationId: request.admission.requestId });
  }

  @Post('async/collections/:collection_id/runs/:run_id/webhook-deliveries/redeliver')
  @HttpCode(202)
  @Access('client')
  @ApiOperation({
    summary: 'Send the run\'s completion webhook again now (not in the spec): one attempt, same X-Service-Delivery-Id, signed with the current secret; it replaces any remaining retry schedule.',
  })
  @ApiConflictResponse({ description: 'An attempt is under way (delivery_in_progress).' })
  redeliver(@Param('collection_id', COLLECTION_ID) collectionId: string, @Param('run_id', RUN_ID) runId: string, @Req() request: FastifyRequest): Promise<WebhookDeliveryLog> {
    return this.bus.request(SUBJECTS.webhooks.redeliver, { client_id: request.admission.client!.id, collection_id: collectionId, run_id: runId }, { correlationId: request.admission.requestId });
  }
}
