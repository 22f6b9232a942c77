import {
  CollectionReference,
  CollectionView,
  CollectionWriteReply,
  CreateCollectionCommand,
  ListCollectionsQuery,
  MAX_COLLECTION_REQUESTS,
  SUBJECTS,
  UpdateCollectionCommand,
} from '@lib/contracts';
import { CLOCK, Clock } from '@lib/runtime';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { CollectionNotFoundError, InvalidCollectionError } from '../batch-orchestrator.errors';
import { CollectionItemsValidator, counted, ItemsVerdict, writeSummaryOf } from './collection-items.validator';
import { CollectionStore } from '../persistence/collections.store';

/** Collections CRUD (spec 4.3): per-item validation, SSRF vetting and dedup on every write of `requests`. */
@Controller()
export class CollectionsController {
  constructor(
    private readonly store: CollectionStore,
    private readonly items: CollectionItemsValidator,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(SUBJECTS.collections.create)
  async create(@Payload() command: CreateCollectionCommand): Promise<CollectionWriteReply> {
    await this.items.vetCallback(command.callback_url);
    const verdict = await this.checked(command.requests ?? []);
    const id = randomUUID();
    await this.store.insert({
      id,
      clientId: command.client_id,
      name: command.name,
      callbackUrl: command.callback_url,
      items: verdict.accepted,
      at: this.clock.now(),
    });
    return {
      id,
      name: command.name,
      message: summaryOf('Collection created', verdict),
      duplicates_skipped: verdict.duplicate_urls.length,
      blocked_urls: verdict.blocked_urls,
      invalid_items: verdict.invalid_items,
      duplicate_urls: verdict.duplicate_urls,
    };
  }

  @MessagePattern(SUBJECTS.collections.update)
  async update(@Payload() command: UpdateCollectionCommand): Promise<CollectionWriteReply> {
    // Checked before the write, so an unknown collection never costs a round of DNS lookups.
    if (!(await this.store.find(command.client_id, command.collection_id))) throw notFound(command.collection_id);
    if (command.callback_url !== undefined) await this.items.vetCallback(command.callback_url);
    const verdict = command.requests !== undefined ? await this.checked(command.requests ?? []) : null;
    const updated = await this.store.update(
      command.client_id,
      command.collection_id,
      { name: command.name, callbackUrl: command.callback_url, items: verdict?.accepted },
      this.clock.now(),
    );
    if (!updated) throw notFound(command.collection_id);
    return {
      id: updated.id,
      name: updated.name,
      message: verdict ? summaryOf('Collection updated', verdict) : 'Collection updated.',
      duplicates_skipped: verdict?.duplicate_urls.length ?? 0,
      blocked_urls: verdict?.blocked_urls ?? [],
      invalid_items: verdict?.invalid_items ?? [],
      duplicate_urls: verdict?.duplicate_urls ?? [],
    };
  }

  @MessagePattern(SUBJECTS.collections.delete)
  async delete(@Payload() query: CollectionReference): Promise<{ deleted: boolean }> {
    if (!(await this.store.delete(query.client_id, query.collection_id))) throw notFound(query.collection_id);
    return { deleted: true };
  }

  @MessagePattern(SUBJECTS.collections.get)
  async get(@Payload() query: CollectionReference): Promise<CollectionView> {
    const found = await this.store.find(query.client_id, query.collection_id);
    if (!found) throw notFound(query.collection_id);
    return found;
  }

  @MessagePattern(SUBJECTS.collections.list)
  list(@Payload() query: ListCollectionsQuery): Promise<CollectionView[]> {
    return this.store.list(query.client_id, {
      name: query.name,
      namePrefix: query.name_prefix,
      since: query.since_ms === undefined ? undefined : new Date(query.since_ms),
    });
  }

  private async checked(requests: unknown[]): Promise<ItemsVerdict> {
    // The gateway refuses this already (400); checked again since any context may send the command.
    if (requests.length > MAX_COLLECTION_REQUESTS) {
      throw new InvalidCollectionError(`A collection holds at most ${MAX_COLLECTION_REQUESTS} requests; this one has ${requests.length}.`);
    }
    return this.items.check(requests);
  }
}

function notFound(id: string): CollectionNotFoundError {
  return new CollectionNotFoundError(`Collection ${id} not found.`);
}

function summaryOf(what: string, verdict: ItemsVerdict): string {
  return writeSummaryOf(`${what} with ${counted(verdict.accepted.length, 'request')}`, verdict);
}
