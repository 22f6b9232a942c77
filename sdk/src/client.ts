import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { errorFromResponse, ScrapingApiError } from './errors';
import type { components, paths } from './generated/api';

type Schemas = components['schemas'];
export type ScrapeRequest = Schemas['ScrapeRequest'];
export type ScrapeResult = Schemas['ScrapeResultBody'];
export type DownloadRequest = Schemas['DownloadRequest'];
export type DownloadResult = Schemas['DownloadResultBody'];
export type CollectionRequest = Schemas['CollectionBody'];
export type CollectionCreated = Schemas['CollectionWriteReply'];
export type Run = Schemas['RunView'];
export type JobListingItem = Schemas['JobListingItem'];
export type JobResult = Schemas['JobResultBody'];
export type ViabilityTestRequest = Schemas['ViabilityTestBody'];
export type ViabilityRun = Schemas['ViabilityRunView'];
export type ViabilityResult = Schemas['ViabilityResult'];
export type JobListQuery = NonNullable<paths['/v1/async/collections/{collection_id}/runs/{run_id}/jobs']['get']['parameters']['query']>;

export interface ScrapingClientOptions {
  /** Where the API is served, without /v1 (e.g. http://localhost:8080). */
  baseUrl: string;
  /** Bearer token; omit for health, plans and the OpenAPI document. */
  token?: string;
  /** 429 and 503 answers are retried this many times after their Retry-After (default 3). */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown (default 60 s; a spent monthly quota says days). */
  maxRetryAfterSeconds?: number;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

export interface WaitOptions {
  /** First poll delay; it grows ×1.5 up to 10 s (default 1000 ms). */
  pollIntervalMs?: number;
  /** Give up after this long (default 30 minutes). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The Scraping API for TypeScript. `api` is the generated client (openapi-fetch over the served
 * OpenAPI document: every path, parameter and body is typed); the methods are what a client
 * otherwise writes by hand on top of it. Every method throws ScrapingApiError on a non-2xx answer.
 */
export class ScrapingClient {
  readonly api: Client<paths>;

  constructor(options: ScrapingClientOptions) {
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
      fetch: honouringRetryAfter(
        options.fetch ?? ((request) => fetch(request)),
        options.maxRetries ?? 3,
        options.maxRetryAfterSeconds ?? 60,
      ),
    });
  }

  /** One URL, fetched now (POST /v1/sync/scrape). */
  async scrape(request: ScrapeRequest): Promise<ScrapeResult> {
    return unwrap(await this.api.POST('/v1/sync/scrape', { body: request }));
  }

  /** One file as base64 (POST /v1/sync/download). */
  async download(request: DownloadRequest): Promise<DownloadResult> {
    return unwrap(await this.api.POST('/v1/sync/download', { body: request }));
  }

  /**
   * Creates a collection under an Idempotency-Key (a new UUID unless you pass one), so a create
   * retried after a lost answer returns the first collection instead of a second one.
   */
  async createCollection(
    request: CollectionRequest,
    options: { idempotencyKey?: string } = {},
  ): Promise<{ collection: CollectionCreated; idempotencyKey: string; replayed: boolean }> {
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    const result = await this.api.POST('/v1/async/collections', {
      body: request,
      params: { header: { 'Idempotency-Key': idempotencyKey } },
    });
    const collection = unwrap(result);
    return { collection, idempotencyKey, replayed: result.response.headers.get('idempotency-replayed') === 'true' };
  }

  /** Starts a run of the collection (POST …/run). */
  async startRun(collectionId: string): Promise<Run> {
    return unwrap(await this.api.POST('/v1/async/collections/{collection_id}/run', { params: { path: { collection_id: collectionId } } }));
  }

  async getRun(collectionId: string, runId: string): Promise<Run> {
    return unwrap(
      await this.api.GET('/v1/async/collections/{collection_id}/runs/{run_id}', {
        params: { path: { collection_id: collectionId, run_id: runId } },
      }),
    );
  }

  /** Polls the run (backing off) until it is completed, and returns it. */
  async waitForRun(collectionId: string, runId: string, options: WaitOptions = {}): Promise<Run> {
    return untilCompleted(
      () => this.getRun(collectionId, runId),
      (run) =>
        `run ${runId} still ${run.status} (${run.success_requests + run.failed_requests + run.timeout_requests}/${run.total_requests} done)`,
      options,
    );
  }

  /** Starts a viability test (POST /v1/async/viability-test): 202, in progress; the probes are charged as they run. */
  async startViabilityTest(request: ViabilityTestRequest): Promise<ViabilityRun> {
    return unwrap(await this.api.POST('/v1/async/viability-test', { body: request }));
  }

  async getViabilityTest(runId: string): Promise<ViabilityRun> {
    return unwrap(await this.api.GET('/v1/async/viability-test/{run_id}', { params: { path: { run_id: runId } } }));
  }

  /** Polls the viability test (backing off) until every URL is analysed; the results, one per URL in request order. */
  async waitForViabilityTest(runId: string, options: WaitOptions = {}): Promise<ViabilityResult[]> {
    const run = await untilCompleted(
      () => this.getViabilityTest(runId),
      (r) => `viability test ${runId} still ${r.status} (${r.completed_urls}/${r.total_urls} URLs done)`,
      options,
    );
    return run.results ?? [];
  }

  /** The client's viability tests, newest first, across cursor pages (without their results). */
  async *viabilityTests(pageSize = 20): AsyncGenerator<ViabilityRun> {
    let cursor: string | undefined;
    do {
      const page = unwrap(
        await this.api.GET('/v1/async/viability-test', { params: { query: { limit: pageSize, ...(cursor ? { cursor } : {}) } } }),
      );
      yield* page.items;
      cursor = page.has_more && page.cursor_next ? page.cursor_next : undefined;
    } while (cursor);
  }

  /** Every job of a run, across cursor pages (spec 4.5), in the order asked for. */
  async *jobs(collectionId: string, runId: string, query: Omit<JobListQuery, 'cursor'> = {}): AsyncGenerator<JobListingItem> {
    let cursor: string | undefined;
    do {
      const page = unwrap(
        await this.api.GET('/v1/async/collections/{collection_id}/runs/{run_id}/jobs', {
          params: { path: { collection_id: collectionId, run_id: runId }, query: { ...query, ...(cursor ? { cursor } : {}) } },
        }),
      );
      yield* page.items;
      cursor = page.has_more && page.cursor_next ? page.cursor_next : undefined;
    } while (cursor);
  }

  /** One job's stored result; throws ScrapingApiError (errorCode result_pending, result_expired, …) when there is none. */
  async jobResult(collectionId: string, runId: string, jobId: string): Promise<JobResult> {
    return unwrap(
      await this.api.GET('/v1/async/collections/{collection_id}/runs/{run_id}/jobs/{job_id}/result', {
        params: { path: { collection_id: collectionId, run_id: runId, job_id: jobId } },
      }),
    );
  }

  /**
   * Every completed job with its result: inline where the listing carries it (include_results),
   * else from the result endpoint (bodies above about 256 KB). `result` is null, with the reason
   * in `error`, when the body is no longer available.
   */
  async *results(
    collectionId: string,
    runId: string,
  ): AsyncGenerator<{ job: JobListingItem; result: JobResult | null; error: ScrapingApiError | null }> {
    for await (const job of this.jobs(collectionId, runId, { status_filter: 'completed', include_results: true, limit: 100 })) {
      if (job.result) {
        yield { job, result: job.result, error: null };
        continue;
      }
      try {
        yield { job, result: await this.jobResult(collectionId, runId, job.job_public_id), error: null };
      } catch (error) {
        if (!(error instanceof ScrapingApiError) || error.status !== 404) throw error;
        yield { job, result: null, error };
      }
    }
  }
}

/** Polls `read` (first after pollIntervalMs, then ×1.5 up to 10 s) until it says completed. */
async function untilCompleted<T extends { status: string }>(
  read: () => Promise<T>,
  describe: (last: T) => string,
  options: WaitOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  const deadline = Date.now() + timeoutMs;
  let delay = options.pollIntervalMs ?? 1000;
  for (;;) {
    options.signal?.throwIfAborted();
    const last = await read();
    if (last.status === 'completed') return last;
    if (Date.now() + delay > deadline) throw new Error(`${describe(last)} after ${timeoutMs} ms`);
    await sleep(delay, options.signal);
    delay = Math.min(delay * 1.5, 10_000);
  }
}

export function createScrapingClient(options: ScrapingClientOptions): ScrapingClient {
  return new ScrapingClient(options);
}

/** The body of a success, or ScrapingApiError with the contract's error_code. */
export function unwrap<D>(result: { data?: D; error?: unknown; response: Response }): D {
  if (result.error !== undefined || !result.response.ok) throw errorFromResponse(result.response, result.error);
  if (result.data === undefined) throw new ScrapingApiError(result.response.status, 'empty_response', null, null);
  return result.data;
}

/** Waits out 429 and 503 answers as their Retry-After says (with jitter), a bounded number of times. */
function honouringRetryAfter(
  base: (request: Request) => Promise<Response>,
  maxRetries: number,
  maxWaitSeconds: number,
): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      const response = await base(request.clone());
      if ((response.status !== 429 && response.status !== 503) || attempt >= maxRetries) return response;
      const waitSeconds = Number(response.headers.get('retry-after'));
      if (!Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > maxWaitSeconds) return response;
      await response.body?.cancel();
      await sleep(waitSeconds * 1000 + Math.random() * 250, request.signal);
    }
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
