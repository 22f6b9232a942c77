import {
  CollectionDeleteReply,
  CollectionUpdateReply,
  CollectionView,
  CollectionWriteReply,
  DEFAULT_COLLECTION_NAME,
  SUBJECTS,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { Fails, Returns, ValidationStatus } from '../openapi/operation-contract';
import { COLLECTION_CREATED_EXAMPLE } from '../openapi/response-examples';
import { CollectionBody, CollectionListQuery, isoToEpochMs } from './collection.dto';
import { IdempotencyKeys } from '../idempotency/idempotency-keys';
import { COLLECTION_ID } from '../resource-ids/resource-id.pipe';

// Vetting 1000 URLs resolves their names (16 at a time): longer than an ordinary call.
const WRITE_TIMEOUT_MS = 120_000;

@ApiTags('collections')
@ApiBearerAuth()
@Controller('v1/async/collections')
export class CollectionsController {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly idempotency: IdempotencyKeys,
  ) {}

  @Post()
  @Access('client')
  @ApiOperation({
    summary:
      'Create a collection (spec 2.11/2.12). Items failing validation or the SSRF guard are listed in invalid_items / blocked_urls; the rest are stored, deduplicated on (url, custom_id).',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'At most 200 chars, no whitespace or ":". Same key + same body within 24 h replays the response (Idempotency-Replayed: true); a parallel duplicate waits up to 30 s (then 409); another body gets 422.',
  })
  @Returns(201, CollectionWriteReply, {
    description: 'Created (spec 2.12), or the first response replayed for a repeated Idempotency-Key.',
    example: COLLECTION_CREATED_EXAMPLE,
    headers: {
      'Idempotency-Replayed': {
        description: 'Only with an Idempotency-Key: true when this is the first response replayed.',
        schema: { type: 'boolean' },
      },
    },
  })
  @ValidationStatus(400)
  @Fails(
    'target.blocked',
    'target.invalid_url',
    'collection.invalid',
    'idempotency.invalid_key',
    'idempotency.key_reused',
    'idempotency.in_flight',
  )
  async create(
    @Body() body: CollectionBody,
    @Headers('idempotency-key') key: string | undefined,
    @Caller() caller: AdmittedCall,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CollectionWriteReply> {
    const clientId = caller.client.id;
    const work = async () => {
      const created = await this.bus.request(
        SUBJECTS.collections.create,
        {
          client_id: clientId,
          name: body.name ?? DEFAULT_COLLECTION_NAME,
          requests: body.requests ?? null,
          callback_url: body.callback_url ?? null,
        },
        { timeoutMs: WRITE_TIMEOUT_MS },
      );
      return { status: 201, body: created };
    };
    if (key === undefined) {
      void reply.status(201);
      return (await work()).body;
    }
    const outcome = await this.idempotency.once(clientId, key, reply.request.body, work);
    void reply.status(outcome.status).header('idempotency-replayed', String(outcome.replayed));
    return outcome.body;
  }

  @Get()
  @Access('client')
  @ApiOperation({ summary: "The client's collections; name, name_prefix and since combine with AND." })
  @Returns(200, [CollectionView], { description: 'The collections, oldest first.' })
  @ValidationStatus(400)
  list(@Query() query: CollectionListQuery, @Caller() caller: AdmittedCall): Promise<CollectionView[]> {
    const since = query.since === undefined ? undefined : isoToEpochMs(query.since);
    return this.bus.request(SUBJECTS.collections.list, {
      client_id: caller.client.id,
      name: query.name,
      name_prefix: query.name_prefix,
      since_ms: since,
    });
  }

  @Get(':collection_id')
  @Access('client')
  @ApiOperation({ summary: 'One collection (spec 2.10) with its callback_url and request count.' })
  @Returns(200, CollectionView, { description: 'The collection.' })
  @Fails('collection.not_found')
  get(@Param('collection_id', COLLECTION_ID) collectionId: string, @Caller() caller: AdmittedCall): Promise<CollectionView> {
    return this.bus.request(SUBJECTS.collections.get, { client_id: caller.client.id, collection_id: collectionId });
  }

  @Put(':collection_id')
  @Access('client')
  @ApiOperation({
    summary: 'Update name, callback_url and/or requests; a supplied requests list replaces the stored one (validated like create).',
  })
  @Returns(200, CollectionUpdateReply, { description: 'Updated: id, name and message (spec 2.12).' })
  @ValidationStatus(400)
  @Fails('target.blocked', 'target.invalid_url', 'collection.not_found', 'collection.invalid')
  async update(
    @Param('collection_id', COLLECTION_ID) collectionId: string,
    @Body() body: CollectionBody,
    @Caller() caller: AdmittedCall,
  ): Promise<CollectionUpdateReply> {
    const updated = await this.bus.request(
      SUBJECTS.collections.update,
      {
        client_id: caller.client.id,
        collection_id: collectionId,
        name: body.name,
        requests: body.requests,
        callback_url: body.callback_url,
      },
      { timeoutMs: WRITE_TIMEOUT_MS },
    );
    return { id: updated.id, name: updated.name, message: updated.message };
  }

  @Delete(':collection_id')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({ summary: 'Delete the collection and its stored requests; runs already started finish and stay readable.' })
  @Returns(200, CollectionDeleteReply, { description: 'Deleted.' })
  @Fails('collection.not_found')
  async delete(
    @Param('collection_id', COLLECTION_ID) collectionId: string,
    @Caller() caller: AdmittedCall,
  ): Promise<CollectionDeleteReply> {
    await this.bus.request(SUBJECTS.collections.delete, { client_id: caller.client.id, collection_id: collectionId });
    return { id: collectionId, deleted: true, message: 'Collection deleted.' };
  }
}
