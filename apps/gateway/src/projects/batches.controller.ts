import { BatchAction, BatchView, BatchWriteReply, SUBJECTS, WebhookDeliveryLog } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Put, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { IdempotencyKeys } from '../idempotency/idempotency-keys';
import { BATCH_ID } from '../resource-ids/resource-id.pipe';
import { CreditGate } from '../credits/credit-gate';
import { Fails, Returns } from '../openapi/operation-contract';
import { BATCH_EXAMPLE, BATCH_WRITE_EXAMPLE } from '../openapi/response-examples';
import { AppendJobsBody, BatchBody } from './project.dto';

// Vetting 1000 URLs resolves their names (16 at a time): longer than an ordinary call.
const WRITE_TIMEOUT_MS = 120_000;
const DEFAULT_BATCH_NAME = 'New Batch';

const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  required: false,
  description:
    'As on collection create: at most 200 chars, no whitespace or ":". Same key + same route and body within 24 h replays the response (Idempotency-Replayed: true); a parallel duplicate waits up to 30 s (then 409); another body gets 422.',
};
const REPLAYED_HEADER = {
  'Idempotency-Replayed': {
    description: 'Only with an Idempotency-Key: true when this is the first response replayed.',
    schema: { type: 'boolean' as const },
  },
};

/** Batches of a project (spec 4.8; decision 0014 has the model and the state table). */
@ApiTags('batches')
@ApiBearerAuth()
@Controller('v1/batches')
export class BatchesController {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly idempotency: IdempotencyKeys,
    private readonly credits: CreditGate,
  ) {}

  @Post()
  @Access('client')
  @ApiOperation({
    summary:
      "Create a batch in a project, open, with optional initial requests (validated like a collection's, with the project's defaults merged under each). Nothing runs until POST …/run.",
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @Returns(201, BatchWriteReply, { description: 'The batch, open.', example: BATCH_WRITE_EXAMPLE, headers: REPLAYED_HEADER })
  @Fails(
    'project.not_found',
    'run.invalid_state',
    'batch.invalid',
    'target.blocked',
    'target.invalid_url',
    'idempotency.invalid_key',
    'idempotency.key_reused',
    'idempotency.in_flight',
  )
  create(
    @Body() body: BatchBody,
    @Headers('idempotency-key') key: string | undefined,
    @Caller() caller: AdmittedCall,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BatchWriteReply> {
    const client = caller.client;
    return this.once(key, caller, reply, 'POST /v1/batches', () =>
      this.bus.request(
        SUBJECTS.batches.create,
        {
          client_id: client.id,
          project_id: body.project_id,
          name: body.name ?? DEFAULT_BATCH_NAME,
          ...(body.callback_url === undefined ? {} : { callback_url: body.callback_url }),
          requests: body.requests ?? [],
          max_concurrency: client.limits.batchConcurrency,
          monthly_credits: client.limits.monthlyCredits,
        },
        { timeoutMs: WRITE_TIMEOUT_MS },
      ),
    );
  }

  @Post(':batch_id/append-jobs')
  @Access('client')
  @ApiOperation({
    summary:
      'Add scrape requests to an open, running or paused batch (a running batch dispatches them at once); same per-item rules as create. A cancelling, completed or cancelled batch: 409 invalid_state.',
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @Returns(201, BatchWriteReply, { description: 'The batch after the write.', example: BATCH_WRITE_EXAMPLE, headers: REPLAYED_HEADER })
  @Fails(
    'batch.not_found',
    'run.invalid_state',
    'batch.invalid',
    'idempotency.invalid_key',
    'idempotency.key_reused',
    'idempotency.in_flight',
  )
  append(
    @Param('batch_id', BATCH_ID) batchId: string,
    @Body() body: AppendJobsBody,
    @Headers('idempotency-key') key: string | undefined,
    @Caller() caller: AdmittedCall,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BatchWriteReply> {
    const client = caller.client;
    return this.once(key, caller, reply, `POST /v1/batches/${batchId}/append-jobs`, () =>
      this.bus.request(
        SUBJECTS.batches.append,
        {
          client_id: client.id,
          batch_id: batchId,
          requests: body.requests,
          max_concurrency: client.limits.batchConcurrency,
          monthly_credits: client.limits.monthlyCredits,
        },
        { timeoutMs: WRITE_TIMEOUT_MS },
      ),
    );
  }

  @Post(':batch_id/run')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary:
      "Start an open batch (its jobs are dispatched within the plan's and the project's limits and charged as they complete). Running: 200, no change. Without jobs, or paused/cancelling/completed/cancelled: 409 invalid_state.",
  })
  @Returns(200, BatchView, { description: 'The batch, running.', example: BATCH_EXAMPLE })
  @Fails('batch.not_found', 'run.invalid_state', 'limits.quota_exceeded')
  async run(@Param('batch_id', BATCH_ID) batchId: string, @Caller() caller: AdmittedCall): Promise<BatchView> {
    // Jobs are charged one by one as they complete; a batch needs at least one credit to start.
    await this.credits.assertAvailable(caller.client, 1, 'a batch');
    return this.transition(caller, batchId, 'run');
  }

  @Put(':batch_id/pause')
  @Access('client')
  @ApiOperation({
    summary:
      'Pause a running batch: no further job starts (jobs in flight finish and are charged). Paused: 200, no change. Open, cancelling, completed, cancelled: 409 invalid_state.',
  })
  @Returns(200, BatchView, { description: 'The batch, paused.', example: { ...BATCH_EXAMPLE, state: 'paused' } })
  @Fails('batch.not_found', 'run.invalid_state')
  pause(@Param('batch_id', BATCH_ID) batchId: string, @Caller() caller: AdmittedCall): Promise<BatchView> {
    return this.transition(caller, batchId, 'pause');
  }

  @Put(':batch_id/resume')
  @Access('client')
  @ApiOperation({
    summary: 'Resume a paused batch. Running: 200, no change. Open, cancelling, completed, cancelled: 409 invalid_state.',
  })
  @Returns(200, BatchView, { description: 'The batch, running.', example: BATCH_EXAMPLE })
  @Fails('batch.not_found', 'run.invalid_state')
  resume(@Param('batch_id', BATCH_ID) batchId: string, @Caller() caller: AdmittedCall): Promise<BatchView> {
    return this.transition(caller, batchId, 'resume');
  }

  @Post(':batch_id/cancel')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary:
      'Cancel (not in the spec): jobs not started end cancelled, never run and never charged; jobs in flight finish. The batch is cancelling until they do, then cancelled, and its webhook fires once. Cancelling: 200, no change. Completed or cancelled: 409 invalid_state.',
  })
  @Returns(200, BatchView, {
    description: 'The batch, cancelling or cancelled.',
    example: {
      ...BATCH_EXAMPLE,
      state: 'cancelled',
      status: 'completed',
      failed_requests: 2,
      cancelled_requests: 2,
      completed_at: 1795000060,
    },
  })
  @Fails('batch.not_found', 'run.invalid_state')
  cancel(@Param('batch_id', BATCH_ID) batchId: string, @Caller() caller: AdmittedCall): Promise<BatchView> {
    return this.transition(caller, batchId, 'cancel');
  }

  @Get(':batch_id')
  @Access('client')
  @ApiOperation({ summary: 'One batch: its state and the run counters of spec 2.13 (its jobs: GET /v1/jobs?batch_id=).' })
  @Returns(200, BatchView, { description: 'The batch.', example: BATCH_EXAMPLE })
  @Fails('batch.not_found')
  get(@Param('batch_id', BATCH_ID) batchId: string, @Caller() caller: AdmittedCall): Promise<BatchView> {
    return this.bus.request(SUBJECTS.batches.get, { client_id: caller.client.id, batch_id: batchId });
  }

  @Get(':batch_id/webhook-deliveries')
  @Access('client')
  @ApiOperation({
    summary: "The delivery log of the batch's completion webhook (batch.completed), as for runs (not in the spec).",
  })
  @Returns(200, WebhookDeliveryLog, { description: 'The delivery log.' })
  @Fails('webhook.not_found', 'batch.not_found')
  deliveries(@Param('batch_id', BATCH_ID) batchId: string, @Caller() caller: AdmittedCall): Promise<WebhookDeliveryLog> {
    return this.bus.request(SUBJECTS.webhooks.runDeliveries.get, { client_id: caller.client.id, run_id: batchId, kind: 'batch' });
  }

  @Post(':batch_id/webhook-deliveries/redeliver')
  @HttpCode(202)
  @Access('client')
  @ApiOperation({
    summary:
      "Send the batch's completion webhook again now: one attempt, same X-Service-Delivery-Id, signed with the current secret; it replaces any remaining retry schedule.",
  })
  @Returns(202, WebhookDeliveryLog, { description: 'The attempt is scheduled; the log shows it once made.' })
  @Fails('webhook.not_found', 'webhook.delivery_in_progress', 'batch.not_found')
  redeliver(@Param('batch_id', BATCH_ID) batchId: string, @Caller() caller: AdmittedCall): Promise<WebhookDeliveryLog> {
    return this.bus.request(SUBJECTS.webhooks.runDeliveries.redeliver, { client_id: caller.client.id, run_id: batchId, kind: 'batch' });
  }

  private transition(caller: AdmittedCall, batchId: string, action: BatchAction): Promise<BatchView> {
    const client = caller.client;
    return this.bus.request(
      SUBJECTS.batches.transition,
      {
        client_id: client.id,
        batch_id: batchId,
        action,
        max_concurrency: client.limits.batchConcurrency,
        monthly_credits: client.limits.monthlyCredits,
      },
      { timeoutMs: 60_000 },
    );
  }

  /** A write under an optional Idempotency-Key; the route is part of what the key is checked against. */
  private async once(
    key: string | undefined,
    caller: AdmittedCall,
    reply: FastifyReply,
    route: string,
    write: () => Promise<BatchWriteReply>,
  ): Promise<BatchWriteReply> {
    const work = async () => ({ status: 201, body: await write() });
    if (key === undefined) {
      void reply.status(201);
      return (await work()).body;
    }
    const outcome = await this.idempotency.once(caller.client.id, key, { route, body: reply.request.body }, work);
    void reply.status(outcome.status).header('idempotency-replayed', String(outcome.replayed));
    return outcome.body;
  }
}
