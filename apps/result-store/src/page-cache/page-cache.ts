import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants as zlib } from 'node:zlib';
import {
  PageCacheConfirmCommand,
  PageCacheLookupQuery,
  PageCacheLookupReply,
  PageCacheStoreCommand,
  ScrapeResultBody,
  StoredPage,
} from '@lib/contracts';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { PageCacheStore, type PageCacheRow } from '../persistence/page-cache.store';
import { pageCacheKey } from './page-cache-key';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * A result larger than this as JSON is not kept: a full-page screenshot with captured network
 * bodies can run to tens of megabytes, and an entry is read whole on every hit.
 */
export const PAGE_CACHE_ENTRY_MAX_BYTES = 10 * 1024 * 1024;

// Brotli's middle quality: most of its ratio on JSON at a few milliseconds per megabyte, off the
// request's path (the gateway stores after it has answered).
const BROTLI_QUALITY = 5;

/**
 * The page cache (decision 0037): the last usable result of each client's request, served while it
 * is younger than the request's max_age, and otherwise handed back with the origin's validators so
 * the engine can ask whether it changed. Entries are per client: nothing crosses tenants.
 */
@Injectable()
export class PageCache {
  constructor(
    private readonly store: PageCacheStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async lookup(query: PageCacheLookupQuery): Promise<PageCacheLookupReply> {
    const { key } = pageCacheKey(query.request);
    // max_age 0 never serves: the request is a fetch whose result is kept for the next one.
    if (query.max_age === 0) return { state: 'absent', key };
    const row = await this.store.find(query.client_id, key);
    if (!row) return { state: 'absent', key };
    const ageMs = this.clock.now().getTime() - row.validatedAt.getTime();
    if (ageMs <= query.max_age * 1000) return { state: 'fresh', key, entry: await storedPageOf(row) };
    return { state: 'stale', key, validators: row.validators };
  }

  async keep(command: PageCacheStoreCommand): Promise<{ stored: boolean }> {
    const json = Buffer.from(JSON.stringify(command.result));
    if (json.length > PAGE_CACHE_ENTRY_MAX_BYTES) return { stored: false };
    const body = await compress(json, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
        [zlib.BROTLI_PARAM_SIZE_HINT]: json.length,
      },
    });
    await this.store.put({
      clientId: command.client_id,
      key: command.key,
      url: command.url,
      body,
      bodyBytes: json.length,
      validators: command.validators,
      fetchedAt: new Date(command.fetched_at),
    });
    return { stored: true };
  }

  async confirm(command: PageCacheConfirmCommand): Promise<{ entry: StoredPage | null }> {
    const row = await this.store.confirm(command.client_id, command.key, new Date(command.validated_at));
    return { entry: row ? await storedPageOf(row) : null };
  }
}

async function storedPageOf(row: PageCacheRow): Promise<StoredPage> {
  const result = JSON.parse((await decompress(row.body)).toString('utf8')) as ScrapeResultBody;
  return { result, fetched_at: row.fetchedAt.toISOString(), validated_at: row.validatedAt.toISOString() };
}
