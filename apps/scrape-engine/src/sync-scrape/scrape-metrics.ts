import { deliveredUsableContent, type ScrapeExecutionFacts } from '@lib/contracts';
import { platformMetrics } from '@lib/metrics';

export type ScrapeMetricMode = 'simple' | 'browser' | 'download';

/**
 * Counts one finished scrape (scrapes_total, scrape_duration_seconds): `success` when it delivered
 * usable content (deliveredUsableContent, the API's is_success), `blocked` when a block was
 * detected, `not_modified` when a revalidation was answered 304 (the page cache's copy stands),
 * `failed` otherwise, and `error` when the scrape threw before producing a result. `started`: when
 * the work began, if before the call.
 */
type MeasuredResult = { statusCode: number; guidance?: { success?: boolean; error_type?: unknown } | null };

export async function measuredScrape<T extends { facts: ScrapeExecutionFacts; result: MeasuredResult }>(
  mode: ScrapeMetricMode,
  scrape: () => Promise<T>,
  started = performance.now(),
): Promise<T> {
  try {
    const done = await scrape();
    const facts = done.facts;
    const result: MeasuredResult = done.result;
    const ok = deliveredUsableContent(facts, result);
    platformMetrics.scrapes.inc({
      mode,
      outcome: ok ? 'success' : facts.not_modified ? 'not_modified' : facts.block_reason ? 'blocked' : 'failed',
      error_type: platformMetrics.errorTypeLabel(
        ok ? null : typeof result.guidance?.error_type === 'string' ? result.guidance.error_type : null,
      ),
    });
    if (facts.document) countDocument(facts.document);
    return done;
  } catch (error) {
    platformMetrics.scrapes.inc({ mode, outcome: 'error', error_type: 'none' });
    throw error;
  } finally {
    platformMetrics.scrapeDuration.observe({ mode }, (performance.now() - started) / 1000);
  }
}

/** Counts one document read or refused (documents_total, document_pages_total, document_refusals_total, document_read_seconds). */
export function countDocument(document: NonNullable<ScrapeExecutionFacts['document']>): void {
  const { format } = document;
  platformMetrics.documents.inc({ format, outcome: document.outcome });
  if (document.pages > 0) platformMetrics.documentPages.inc({ format }, document.pages);
  if (document.pages_ocr) platformMetrics.documentPagesRecognised.inc(document.pages_ocr);
  if (document.reason) platformMetrics.documentRefusals.inc({ format, reason: document.reason });
  if (document.read_ms !== undefined) platformMetrics.documentSeconds.observe({ format }, document.read_ms / 1000);
}
