import { type PageCacheLookupReply, type PageValidators, type ScrapeResultBody, type StoredPage, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { platformMetrics } from '@lib/metrics';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AdmittedCall } from '../admission/caller.decorator';

/**
 * The page cache as the gateway reaches it (result-store owns it: decision 0037). A cache is an
 * optimisation: when result-store cannot answer, the scrape goes ahead as a fetch, and a result
 * that could not be kept is only a later miss.
 */
@Injectable()
export class PageCacheCalls {
  private readonly logger = new Logger('PageCache');

  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  async lookup(admission: AdmittedCall, request: Record<string, unknown>, maxAge: number): Promise<PageCacheLookupReply | null> {
    try {
      return await this.bus.request(
        SUBJECTS.pageCache.lookup,
        { client_id: admission.client.id, request, max_age: maxAge },
        { correlationId: admission.requestId, timeoutMs: 5000 },
      );
    } catch (error) {
      this.logger.warn(`page cache lookup failed, fetching instead: ${String(error)}`);
      return null;
    }
  }

  /** Keeps a usable result for the next request; answered before this is done, so it never delays the response. */
  keep(
    admission: AdmittedCall,
    key: string,
    url: string,
    result: ScrapeResultBody,
    validators: PageValidators | null,
    fetchedAt: Date,
  ): void {
    void this.bus
      .request(
        SUBJECTS.pageCache.store,
        { client_id: admission.client.id, key, url, result, validators, fetched_at: fetchedAt.toISOString() },
        { correlationId: admission.requestId, timeoutMs: 10_000 },
      )
      .catch((error: unknown) => this.logger.warn(`page cache store failed: ${String(error)}`));
  }

  /** The origin answered 304: the entry is confirmed as of now; null when it went in the meantime. */
  async confirm(admission: AdmittedCall, key: string, at: Date): Promise<StoredPage | null> {
    try {
      const { entry } = await this.bus.request(
        SUBJECTS.pageCache.confirm,
        { client_id: admission.client.id, key, validated_at: at.toISOString() },
        { correlationId: admission.requestId, timeoutMs: 5000 },
      );
      return entry;
    } catch (error) {
      this.logger.warn(`page cache confirm failed: ${String(error)}`);
      return null;
    }
  }

  counted(status: 'hit' | 'revalidated' | 'miss' | 'stale_refetched'): void {
    platformMetrics.pageCache.inc({ status });
  }
}
