import { BlockedUrl, InvalidItem, SyncScrapeRequest, toProblems } from '@lib/contracts';
import { TargetBlockedError, TargetGuard } from '@lib/target-guard';
import { Injectable } from '@nestjs/common';
import { instanceToPlain, plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';

/** An accepted item as stored in the collection. */
export interface CollectionItem {
  url: string;
  custom_id: string | null;
  request: Record<string, unknown>;
}

export interface ItemsVerdict {
  accepted: CollectionItem[];
  invalid_items: InvalidItem[];
  blocked_urls: BlockedUrl[];
  duplicate_urls: string[];
}

// DNS lookups of the SSRF check run this many at a time: a 1000-item collection is vetted in a few
// round trips without flooding the resolver.
const VET_CONCURRENCY = 16;

/**
 * Checks a collection's requests one by one with exactly the sync scrape's rules (the same
 * SyncScrapeRequest class, the page cache's max_age included, the same SSRF guard), so a request that would be refused by
 * POST /v1/sync/scrape is refused here too, with its index. Passing items are deduplicated on
 * (url, custom_id): the first occurrence stays.
 */
@Injectable()
export class CollectionItemsValidator {
  constructor(private readonly guard: TargetGuard) {}

  /**
   * A callback_url must be a public http(s) target like any scrape target (TargetBlockedError →
   * 422 target_blocked with its reason); webhook-sender checks it again at delivery time.
   */
  async vetCallback(url: string | null): Promise<void> {
    if (url !== null) await this.guard.vet(url);
  }

  /** Every URL a public target (a monitor's pages), vetted a few at a time; the first refused one is the error (422 target_blocked). */
  async vetAll(urls: string[]): Promise<void> {
    await mapLimited(urls, VET_CONCURRENCY, (url) => this.guard.vet(url));
  }

  /**
   * A project's defaults: scrape-request fields other than url and custom_id, each valid by the
   * sync scrape's rules (checked on a stand-in URL; every item is checked again once merged).
   * Returns the problems, none when they are fine.
   */
  async defaultsProblems(defaults: Record<string, unknown>): Promise<string[]> {
    const problems = ['url', 'custom_id'].filter((key) => Object.hasOwn(defaults, key)).map((key) => `${key}: not allowed in defaults`);
    const request = plainToInstance(SyncScrapeRequest, { ...defaults, url: 'http://defaults.invalid/' });
    const errors = await validate(request, { whitelist: true, forbidNonWhitelisted: true });
    for (const p of toProblems(errors, [])) problems.push(`${p.loc.join('.')}: ${p.msg.replace(/\.$/, '')}`);
    return problems;
  }

  async check(items: unknown[]): Promise<ItemsVerdict> {
    const invalid_items: InvalidItem[] = [];
    const valid: Array<{ index: number; request: SyncScrapeRequest }> = [];
    for (const [index, item] of items.entries()) {
      const url = typeof (item as { url?: unknown } | null)?.url === 'string' ? (item as { url: string }).url : null;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        invalid_items.push({
          index,
          url,
          errors: [{ field: '', error_type: 'dict_type', message: 'Each request must be a JSON object.' }],
        });
        continue;
      }
      const request = plainToInstance(SyncScrapeRequest, item);
      const errors = await validate(request, { whitelist: true, forbidNonWhitelisted: true });
      if (errors.length > 0) {
        const problems = toProblems(errors, []);
        invalid_items.push({ index, url, errors: problems.map((p) => ({ field: p.loc.join('.'), error_type: p.type, message: p.msg })) });
        continue;
      }
      valid.push({ index, request });
    }

    const verdicts = await mapLimited(valid, VET_CONCURRENCY, async ({ index, request }): Promise<BlockedUrl | null> => {
      try {
        await this.guard.vet(request.url);
        return null;
      } catch (error) {
        if (error instanceof TargetBlockedError) return { index, url: request.url, reason: error.reason, message: error.message };
        throw error;
      }
    });
    const blocked_urls = verdicts.filter((v): v is BlockedUrl => v !== null);
    const blockedIndexes = new Set(blocked_urls.map((b) => b.index));

    const seen = new Set<string>();
    const accepted: CollectionItem[] = [];
    const duplicate_urls: string[] = [];
    for (const { index, request } of valid) {
      if (blockedIndexes.has(index)) continue;
      const key = JSON.stringify([request.url, request.custom_id ?? null]);
      if (seen.has(key)) {
        duplicate_urls.push(request.url);
        continue;
      }
      seen.add(key);
      accepted.push({ url: request.url, custom_id: request.custom_id ?? null, request: instanceToPlain(request) });
    }
    return { accepted, invalid_items, blocked_urls, duplicate_urls };
  }
}

/**
 * The message of a write that stored items: `head` (what was stored), then what was refused or
 * skipped, by count — the same sentence for collections and batches.
 */
export function writeSummaryOf(head: string, verdict: Pick<ItemsVerdict, 'invalid_items' | 'blocked_urls' | 'duplicate_urls'>): string {
  const parts = [head];
  if (verdict.invalid_items.length > 0) parts.push(`${verdict.invalid_items.length} invalid (see invalid_items)`);
  if (verdict.blocked_urls.length > 0) parts.push(`${verdict.blocked_urls.length} blocked (see blocked_urls)`);
  const duplicates = verdict.duplicate_urls.length;
  if (duplicates > 0) parts.push(`${duplicates} duplicate${duplicates === 1 ? '' : 's'} skipped`);
  return `${parts.join('; ')}.`;
}

/** "1 request", "2 jobs". */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
