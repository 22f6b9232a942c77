import { BOUNDED_CONTEXTS, GUIDANCE_ERROR_TYPES, OPS_SUBJECTS, serviceLifecycleSubject } from '@lib/contracts';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (GET /metrics). One registry per process: in the embedded
 * runtime every context of the process adds to it, in the distributed runtime each service
 * serves its own. Label values are bounded by construction — routes are Fastify's patterns,
 * error types the documented list, statuses and kinds small enums — never URLs or client ids, so
 * a million distinct targets cost no more series than one.
 */
const PREFIX = 'scrape_platform_';
const OTHER = 'other';

const KNOWN_ERROR_TYPES = new Set<string>(GUIDANCE_ERROR_TYPES);
// Every ops subject there is: the listed ones and each context's (and the platform's) lifecycle.
const KNOWN_OPS_SUBJECTS = new Set<string>([
  ...Object.values(OPS_SUBJECTS),
  ...[...BOUNDED_CONTEXTS, 'platform' as const].flatMap((c) => [
    serviceLifecycleSubject(c, 'service-started'),
    serviceLifecycleSubject(c, 'service-stopping'),
  ]),
]);

/** A label value from an open set, folded into `other` when it is not one we listed. */
export function boundedLabel(value: string | null | undefined, known: ReadonlySet<string>, none = 'none'): string {
  if (value === null || value === undefined || value === '') return none;
  return known.has(value) ? value : OTHER;
}

/** Reads something at scrape time (queue depth, dependency health); bounded by SAMPLE_TIMEOUT_MS. */
export type MetricsSampler = () => Promise<void>;
const SAMPLE_TIMEOUT_MS = 2000;

export class PlatformMetrics {
  readonly registry = new Registry();
  private readonly samplers = new Map<string, MetricsSampler>();

  readonly httpRequests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered by the gateway, by route pattern, method and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by route pattern and method.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly scrapes = new Counter({
    name: `${PREFIX}scrapes_total`,
    help: 'Scrapes executed by scrape-engine, by mode (simple, browser, download), outcome and guidance error_type.',
    labelNames: ['mode', 'outcome', 'error_type'] as const,
    registers: [this.registry],
  });
  readonly scrapeDuration = new Histogram({
    name: `${PREFIX}scrape_duration_seconds`,
    help: 'Time scrape-engine spent on one scrape, by mode.',
    labelNames: ['mode'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly monitorTicks = new Counter({
    name: `${PREFIX}monitor_ticks_total`,
    help: 'Monitor ticks reported, by whether a page of theirs was new, changed or removed (changed) or not (quiet).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly monitorPageChanges = new Counter({
    name: `${PREFIX}monitor_page_changes_total`,
    help: 'Monitored pages that ticks reported as new, changed or removed (pages seen the same are not counted).',
    labelNames: ['change_status'] as const,
    registers: [this.registry],
  });
  readonly documents = new Counter({
    name: `${PREFIX}documents_total`,
    help: 'Documents read (scraped, or uploaded to /v1/documents/convert), by format and outcome: read, ocr_required (a PDF scan: no text layer), unreadable (refused: document_refusals_total says why).',
    labelNames: ['format', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly documentRefusals = new Counter({
    name: `${PREFIX}document_refusals_total`,
    help: 'Documents refused, by format and reason: document_encrypted, document_corrupt, document_too_large (pages declared, bytes once inflated, memory, or the time budget).',
    labelNames: ['format', 'reason'] as const,
    registers: [this.registry],
  });
  readonly documentSeconds = new Histogram({
    name: `${PREFIX}document_read_seconds`,
    help: 'Time to read one document into markdown (on its document thread, waiting for the thread included), by format.',
    labelNames: ['format'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30],
    registers: [this.registry],
  });
  readonly documentPages = new Counter({
    name: `${PREFIX}document_pages_total`,
    help: 'Pages of documents read into markdown, by format.',
    labelNames: ['format'] as const,
    registers: [this.registry],
  });
  readonly documentPagesRecognised = new Counter({
    name: `${PREFIX}document_pages_ocr_total`,
    help: 'Pages of scanned PDFs read by OCR (asked with ocr: true): each took seconds of a document thread.',
    registers: [this.registry],
  });
  readonly pageCache = new Counter({
    name: `${PREFIX}page_cache_requests_total`,
    help: 'Scrapes that asked the page cache (max_age: sync scrapes at the gateway, batch jobs in scrape-engine), by how it answered: hit, revalidated (304), miss (nothing fresh, fetched), stale_refetched (revalidation found the page changed).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly creditsCharged = new Counter({
    name: `${PREFIX}credits_charged_total`,
    help: 'Credits recorded in the ledger, by source: sync (gateway credit leases), reservation (reserve/commit: viability probes), batch (batch jobs).',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  readonly jobsFinished = new Counter({
    name: `${PREFIX}jobs_finished_total`,
    help: "Batch jobs that reached a final status (completed, failed, timeout, cancelled), with their outcome (success, failed, timeout, cancelled: the API's one meaning, see JOB_OUTCOMES).",
    labelNames: ['status', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly jobs = new Gauge({
    name: `${PREFIX}jobs`,
    help: 'Batch jobs not yet finished, by phase (waiting for dispatch, dispatched, running), read from the database at scrape time.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: `${PREFIX}job_queue_depth`,
    help: 'Jobs of running batches and runs waiting for dispatch.',
    registers: [this.registry],
  });
  readonly dispatchLag = new Gauge({
    name: `${PREFIX}job_dispatch_lag_seconds`,
    help: 'Age of the oldest job of a running batch or run still waiting for dispatch (0 when none waits).',
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: `${PREFIX}webhook_attempts_total`,
    help: 'Webhook delivery attempts, by outcome (sent, failed = will retry, failed_final, blocked).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly browsers = new Gauge({
    name: `${PREFIX}browser_pool_browsers`,
    help: 'Live browsers in the pool, by kind (light = headless shell, heavy = Chromium).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly browserPagesInFlight = new Gauge({
    name: `${PREFIX}browser_pool_pages_in_flight`,
    help: 'Pages being rendered now.',
    registers: [this.registry],
  });
  readonly browserQueue = new Gauge({
    name: `${PREFIX}browser_pool_queued`,
    help: 'Browser requests waiting for a page slot.',
    registers: [this.registry],
  });
  readonly browserCrashes = new Counter({
    name: `${PREFIX}browser_crashes_total`,
    help: 'Browsers that died under the pool.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly browserRecycles = new Counter({
    name: `${PREFIX}browser_recycles_total`,
    help: 'Browsers the pool retired, by reason (page_budget, hung, idle).',
    labelNames: ['kind', 'reason'] as const,
    registers: [this.registry],
  });
  readonly dependencyUp = new Gauge({
    name: `${PREFIX}dependency_up`,
    help: 'Whether the process reaches a dependency (nats, database): 1 up, 0 down, checked at scrape time.',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });
  readonly dependencyLatency = new Gauge({
    name: `${PREFIX}dependency_ping_seconds`,
    help: 'Round trip of the last check of a dependency.',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });
  readonly opsEvents = new Counter({
    name: `${PREFIX}ops_events_published_total`,
    help: 'Ops events this process published, by event subject.',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts an ops event under its subject (a closed set: anything else is `other`). */
  countOpsEvent(subject: string): void {
    this.opsEvents.inc({ event: boundedLabel(subject, KNOWN_OPS_SUBJECTS) });
  }

  errorTypeLabel(errorType: string | null | undefined): string {
    return boundedLabel(errorType, KNOWN_ERROR_TYPES);
  }

  /**
   * Adds a scrape-time reading under `key` (one per key: the contexts of one process that would
   * read the same thing share it); the returned function removes it when it is still this one.
   */
  addSampler(key: string, sampler: MetricsSampler): () => void {
    this.samplers.set(key, sampler);
    return () => {
      if (this.samplers.get(key) === sampler) this.samplers.delete(key);
    };
  }

  /** Prometheus text exposition, after the samplers ran (each bounded; one that fails leaves its last value). */
  async exposition(): Promise<{ contentType: string; body: string }> {
    await Promise.all(
      [...this.samplers.values()].map((sample) =>
        Promise.race([sample(), new Promise<void>((resolve) => setTimeout(resolve, SAMPLE_TIMEOUT_MS).unref())]).catch(() => undefined),
      ),
    );
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The process's metrics: one registry, whichever contexts run here. */
export const platformMetrics = new PlatformMetrics();
