import { IsInt, IsISO8601, IsObject, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import type { ScrapeResultBody } from './scrape-execution.messages';
import { PAGE_CACHE_MAX_AGE_SECONDS, type PageValidators } from './page-cache-terms';

/**
 * Gateway → result-store: is there a stored result for this client's request, at most `max_age`
 * seconds old? result-store keys it (it owns the key: PageCacheKey), so the same request reaches
 * the same entry from every caller.
 */
export class PageCacheLookupQuery {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsObject()
  request: Record<string, unknown>;

  @IsInt()
  @Min(0)
  @Max(PAGE_CACHE_MAX_AGE_SECONDS)
  max_age: number;
}

/**
 * `fresh`: the stored result, validated within max_age. `stale`: one is stored but older; its
 * validators, when the origin gave any, let the engine ask the origin whether it changed.
 * `absent`: nothing stored (or max_age 0, which never serves).
 */
export type PageCacheLookupReply =
  | { state: 'fresh'; key: string; entry: StoredPage }
  | { state: 'stale'; key: string; validators: PageValidators | null }
  | { state: 'absent'; key: string };

/** A stored result as served: the body, when it was fetched and when the origin last confirmed it. */
export interface StoredPage {
  result: ScrapeResultBody;
  fetched_at: string;
  validated_at: string;
}

/**
 * A stored page as a scrape's answer (a sync scrape's or a batch job's): marked cached, its age from
 * when the origin last gave or confirmed it, its guidance telling what this request was charged,
 * and this request's own timings (a hit's are the lookup's; a revalidation's the conditional
 * request's), not the original fetch's.
 */
export function servedFromCache(
  entry: StoredPage,
  status: 'hit' | 'revalidated',
  now: Date,
  credits: number,
  timings: ScrapeResultBody['timings'],
  executionTime: number,
): ScrapeResultBody {
  const age = Math.max(0, Math.floor((now.getTime() - Date.parse(entry.validated_at)) / 1000));
  return {
    ...entry.result,
    timings,
    executionTime: Math.round(executionTime * 1000) / 1000,
    guidance: { ...entry.result.guidance, credits_charged: credits, credits_refunded: false },
    cached: true,
    cache: { status, age, fetched_at: entry.fetched_at, stored: true },
  };
}

/** Gateway → result-store: keep this result (the bus parks a large one: MessageBus.request) under its key (replacing the entry), with the origin's validators. */
export class PageCacheStoreCommand {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsString()
  @Length(64, 64)
  key: string;

  @IsString()
  @Length(1, 8192)
  url: string;

  @IsObject()
  result: ScrapeResultBody;

  @IsOptional()
  @IsObject()
  validators: PageValidators | null;

  @IsISO8601()
  fetched_at: string;
}

/** Gateway → result-store: the origin answered 304 for this entry; it is valid as of `validated_at`. Replies with the entry, or null when it is gone. */
export class PageCacheConfirmCommand {
  @IsString()
  @Length(1, 128)
  client_id: string;

  @IsString()
  @Length(64, 64)
  key: string;

  @IsISO8601()
  validated_at: string;
}
