import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { errorFromResponse, ScrapingApiError } from './errors';
import type { components, paths } from './generated/api';

type Schemas = components['schemas'];
/** A scrape request with the page cache's max_age and revalidate: a sync scrape, a collection's or batch's item. */
export type SyncScrapeRequest = Schemas['SyncScrapeRequest'];
/** A sync scrape with a token budget for its content (max_tokens, cursor, tokenizer). */
export type WindowedScrapeRequest = Schemas['WindowedScrapeRequest'];
/** With max_tokens: which part of the content an answer holds, and the cursor for the next. */
export type ContentWindow = Schemas['ContentWindow'];
/** GET /v1/read's options (query parameters). */
export type ReadOptions = NonNullable<paths['/v1/read/{path}']['get']['parameters']['query']>;
/** Spec 2.1's scrape request (what a monitor's `scrape` options are, without the url). */
export type ScrapeRequest = Omit<SyncScrapeRequest, 'max_age' | 'revalidate'>;
export type ScrapeResult = Schemas['ScrapeResultBody'];
export type DownloadRequest = Schemas['DownloadRequest'];
export type DownloadResult = Schemas['DownloadResultBody'];
export type DocumentConversion = Schemas['DocumentConversionResult'];
export type DocumentConvertQuery = NonNullable<paths['/v1/documents/convert']['post']['parameters']['query']>;
export type CollectionRequest = Schemas['CollectionBody'];
export type CollectionCreated = Schemas['CollectionWriteReply'];
export type Run = Schemas['RunView'];
export type JobListingItem = Schemas['JobListingItem'];
export type JobResult = Schemas['JobResultBody'];
export type ViabilityTestRequest = Schemas['ViabilityTestBody'];
export type ViabilityRun = Schemas['ViabilityRunView'];
export type ViabilityResult = Schemas['ViabilityResult'];
export type MapSiteRequest = Schemas['MapSiteRequest'];
export type SiteMap = Schemas['MapSiteResult'];
export type CrawlRequest = Schemas['CrawlRequest'];
export type Crawl = Schemas['CrawlView'];
export type LlmsTxtRequest = Schemas['LlmsTxtRequest'];
/** An llms.txt made from a crawl: `llms_txt` is the file, `sections` its links; in_progress while the crawl runs. */
export type LlmsTxt = Schemas['LlmsTxtView'];
export type CrawlWebhookDelivery = Schemas['CrawlWebhookDelivery'];
export type MonitorRequest = Schemas['CreateMonitorRequest'];
export type Monitor = Schemas['MonitorView'];
export type MonitorTick = Schemas['MonitorTickView'];
export type PageChangeEntry = Schemas['PageChangeView'];
export type WebhookDeliveryLog = Schemas['WebhookDeliveryLog'];
export type ProjectRequest = Schemas['ProjectBody'];
export type Project = Schemas['ProjectView'];
export type ProjectTransition = Schemas['ProjectTransitionReply'];
export type ProjectsSummary = Schemas['ProjectsSummary'];
export type BatchRequest = Schemas['BatchBody'];
export type AppendJobsRequest = Schemas['AppendJobsBody'];
export type BatchWritten = Schemas['BatchWriteReply'];
export type Batch = Schemas['BatchView'];
export type ClientJob = Schemas['ClientJobItem'];
export type CreditSummary = Schemas['CreditSummary'];
export type ClientJobQuery = NonNullable<paths['/v1/jobs']['get']['parameters']['query']>;
export type ProjectListQuery = NonNullable<paths['/v1/projects']['get']['parameters']['query']>;
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

  /** One URL, fetched now (POST /v1/sync/scrape), or from the page cache when `max_age` allows; `max_tokens` cuts its content to a token budget. */
  async scrape(request: WindowedScrapeRequest): Promise<ScrapeResult> {
    return unwrap(await this.api.POST('/v1/sync/scrape', { body: request }));
  }

  /** One URL as markdown (GET /v1/read/{url}): the scrape answer, with `content_window` when `max_tokens` is given. */
  async read(url: string, options: ReadOptions = {}): Promise<ScrapeResult> {
    const answer = unwrap(
      await this.api.GET('/v1/read/{path}', { params: { path: { path: url }, query: options }, headers: { accept: 'application/json' } }),
    );
    // Asked for JSON, the answer is the scrape answer; the text forms are for clients without an SDK.
    if (typeof answer === 'string') throw new ScrapingApiError(200, 'unexpected_text', answer.slice(0, 200), null);
    return answer;
  }

  /** Every window of a page within `max_tokens`, first to last, following the cursors (with `max_age`, 3600 unless given, the windows after the first come from the page cache). */
  async *readWindows(url: string, options: ReadOptions & { max_tokens: number }): AsyncGenerator<ScrapeResult> {
    let cursor: string | undefined;
    do {
      const part = await this.read(url, { max_age: 3600, ...options, ...(cursor ? { cursor } : {}) });
      yield part;
      cursor = part.content_window?.cursor ?? undefined;
    } while (cursor);
  }

  /** One file as base64 (POST /v1/sync/download). */
  async download(request: DownloadRequest): Promise<DownloadResult> {
    return unwrap(await this.api.POST('/v1/sync/download', { body: request }));
  }

  /**
   * A document you already have (PDF, DOCX, XLSX, PPTX, ODT, ODS, ODP, EPUB, RTF, CSV) as markdown or
   * HTML (POST /v1/documents/convert): its bytes as the body, typed by `contentType` (else by
   * `filename`'s extension or the bytes themselves). A credit per page read.
   */
  async convertDocument(
    file: Uint8Array | Blob,
    options: DocumentConvertQuery & { contentType?: string } = {},
  ): Promise<DocumentConversion> {
    const { contentType, ...query } = options;
    const type = contentType ?? (file instanceof Blob && file.type ? file.type : 'application/octet-stream');
    return unwrap(
      await this.api.POST('/v1/documents/convert', {
        params: { query },
        // The generated body type is the schema's binary string; the bytes go as they are.
        body: file as unknown as string,
        bodySerializer: (body) => body,
        headers: { 'content-type': type },
      }),
    );
  }

  /**
   * Creates a collection under an Idempotency-Key (a new UUID unless you pass one), so a create
   * retried after a lost answer returns the first collection instead of a second one.
   */
  async createCollection(
    request: CollectionRequest,
    options: { idempotencyKey?: string } = {},
  ): Promise<{ collection: CollectionCreated; idempotencyKey: string; replayed: boolean }> {
    const { body, ...sent } = await underIdempotencyKey(options.idempotencyKey, (key) =>
      this.api.POST('/v1/async/collections', { body: request, params: { header: { 'Idempotency-Key': key } } }),
    );
    return { collection: body, ...sent };
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

  /** Creates a project (POST /v1/projects): defaults for its jobs, a concurrency limit, a monthly credit cap, a callback URL. */
  async createProject(request: ProjectRequest): Promise<Project> {
    return unwrap(await this.api.POST('/v1/projects', { body: request }));
  }

  async getProject(projectId: string): Promise<Project> {
    return unwrap(await this.api.GET('/v1/projects/{project_id}', { params: { path: { project_id: projectId } } }));
  }

  /** The client's projects across cursor pages (optionally one status). */
  async *projects(query: Omit<ProjectListQuery, 'cursor'> = {}): AsyncGenerator<Project> {
    yield* paged((cursor) => this.api.GET('/v1/projects', { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } }));
  }

  /** Each project's jobs by status and credits this month, and whether it can take work now. */
  async projectsSummary(): Promise<ProjectsSummary> {
    return unwrap(await this.api.GET('/v1/projects/summary'));
  }

  /** Pauses, resumes or closes a project (closing cancels its batches' pending jobs, for good). */
  async setProjectState(projectId: string, transition: 'pause' | 'resume' | 'close'): Promise<ProjectTransition> {
    const params = { params: { path: { project_id: projectId } } };
    if (transition === 'pause') return unwrap(await this.api.PUT('/v1/projects/{project_id}/pause', params));
    if (transition === 'resume') return unwrap(await this.api.PUT('/v1/projects/{project_id}/resume', params));
    return unwrap(await this.api.PUT('/v1/projects/{project_id}/close', params));
  }

  /**
   * Creates a batch (open: nothing runs until runBatch) under an Idempotency-Key (a new UUID
   * unless you pass one), so a create retried after a lost answer does not make a second batch.
   */
  async createBatch(
    request: BatchRequest,
    options: { idempotencyKey?: string } = {},
  ): Promise<{ batch: BatchWritten; idempotencyKey: string; replayed: boolean }> {
    const { body, ...sent } = await underIdempotencyKey(options.idempotencyKey, (key) =>
      this.api.POST('/v1/batches', { body: request, params: { header: { 'Idempotency-Key': key } } }),
    );
    return { batch: body, ...sent };
  }

  /** Appends jobs to a batch (duplicates of its URLs are skipped and listed), under an Idempotency-Key. */
  async appendJobs(
    batchId: string,
    request: AppendJobsRequest,
    options: { idempotencyKey?: string } = {},
  ): Promise<{ batch: BatchWritten; idempotencyKey: string; replayed: boolean }> {
    const { body, ...sent } = await underIdempotencyKey(options.idempotencyKey, (key) =>
      this.api.POST('/v1/batches/{batch_id}/append-jobs', {
        body: request,
        params: { path: { batch_id: batchId }, header: { 'Idempotency-Key': key } },
      }),
    );
    return { batch: body, ...sent };
  }

  async getBatch(batchId: string): Promise<Batch> {
    return unwrap(await this.api.GET('/v1/batches/{batch_id}', { params: { path: { batch_id: batchId } } }));
  }

  /** Runs, pauses, resumes or cancels a batch; a state that refuses it is ScrapingApiError invalid_state (409). */
  async setBatchState(batchId: string, transition: 'run' | 'pause' | 'resume' | 'cancel'): Promise<Batch> {
    const params = { params: { path: { batch_id: batchId } } };
    if (transition === 'run') return unwrap(await this.api.POST('/v1/batches/{batch_id}/run', params));
    if (transition === 'cancel') return unwrap(await this.api.POST('/v1/batches/{batch_id}/cancel', params));
    if (transition === 'pause') return unwrap(await this.api.PUT('/v1/batches/{batch_id}/pause', params));
    return unwrap(await this.api.PUT('/v1/batches/{batch_id}/resume', params));
  }

  /** Starts an open batch (POST /v1/batches/{id}/run). */
  async runBatch(batchId: string): Promise<Batch> {
    return this.setBatchState(batchId, 'run');
  }

  /** Polls the batch (backing off) until it is completed or cancelled, and returns it. */
  async waitForBatch(batchId: string, options: WaitOptions = {}): Promise<Batch> {
    return untilDone(
      () => this.getBatch(batchId),
      (batch) => batch.state === 'completed' || batch.state === 'cancelled',
      (batch) =>
        `batch ${batchId} still ${batch.state} (${batch.success_requests + batch.failed_requests + batch.timeout_requests}/${batch.total_requests} done)`,
      options,
    );
  }

  /** Every job of the client (GET /v1/jobs) across cursor pages, filtered by project, batch, status or time. */
  async *allJobs(query: Omit<ClientJobQuery, 'cursor'> = {}): AsyncGenerator<ClientJob> {
    yield* paged((cursor) => this.api.GET('/v1/jobs', { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } }));
  }

  /** One job's stored result by its id alone (GET /v1/jobs/{id}/data); ScrapingApiError result_pending, job_cancelled, … when there is none. */
  async jobData(jobId: string): Promise<JobResult> {
    return unwrap(await this.api.GET('/v1/jobs/{job_id}/data', { params: { path: { job_id: jobId } } }));
  }

  /** This month's credits: limit, used, held, remaining, by kind and by project. */
  async creditSummary(): Promise<CreditSummary> {
    return unwrap(await this.api.GET('/v1/credits/summary'));
  }

  /**
   * Lists a site's URLs (POST /v1/map) from robots.txt, sitemaps and links, each once in its normal
   * form; 1 credit. `truncated` and `stopped_by` say when a bound ended it early.
   */
  async mapSite(request: MapSiteRequest): Promise<SiteMap> {
    return unwrap(await this.api.POST('/v1/map', { body: request }));
  }

  /** Starts a crawl (POST /v1/crawl): 202, running; its pages are charged as they run. */
  async startCrawl(request: CrawlRequest): Promise<Crawl> {
    return unwrap(await this.api.POST('/v1/crawl', { body: request }));
  }

  async getCrawl(crawlId: string): Promise<Crawl> {
    return unwrap(await this.api.GET('/v1/crawl/{crawl_id}', { params: { path: { crawl_id: crawlId } } }));
  }

  /** pause | resume | cancel (decision 0014's table; a refused move is a ScrapingApiError with errorCode invalid_state). */
  async setCrawlState(crawlId: string, action: 'pause' | 'resume' | 'cancel'): Promise<Crawl> {
    const path = { params: { path: { crawl_id: crawlId } } };
    if (action === 'pause') return unwrap(await this.api.PUT('/v1/crawl/{crawl_id}/pause', path));
    if (action === 'resume') return unwrap(await this.api.PUT('/v1/crawl/{crawl_id}/resume', path));
    return unwrap(await this.api.POST('/v1/crawl/{crawl_id}/cancel', path));
  }

  /**
   * Makes an llms.txt for a site (POST /v1/llms-txt, then GET /v1/llms-txt/{crawl_id} until the crawl
   * has ended): `llms_txt` is the file. The crawl's pages are charged as a crawl's; the file is free.
   */
  async makeLlmsTxt(request: LlmsTxtRequest, options: WaitOptions = {}): Promise<LlmsTxt> {
    const started = unwrap(await this.api.POST('/v1/llms-txt', { body: request }));
    return this.waitForLlmsTxt(started.crawl_id, options);
  }

  /** The llms.txt of any of the client's crawls, waiting (backing off) until the crawl has ended. */
  async waitForLlmsTxt(crawlId: string, options: WaitOptions = {}): Promise<LlmsTxt> {
    return untilCompleted(
      () => this.llmsTxtOf(crawlId),
      (v) => `crawl ${crawlId} still ${v.crawl_state} (${v.pages_scraped} pages scraped)`,
      options,
    );
  }

  /** Where a crawl's llms.txt stands now (status in_progress while the crawl runs; the file once it has ended). */
  async llmsTxtOf(crawlId: string): Promise<LlmsTxt> {
    const view = unwrap(
      await this.api.GET('/v1/llms-txt/{crawl_id}', { params: { path: { crawl_id: crawlId } }, headers: { accept: 'application/json' } }),
    );
    if (typeof view === 'string') throw new Error('GET /v1/llms-txt answered text to a JSON request');
    return view;
  }

  /** Watches pages on a schedule (POST /v1/monitors); the first tick runs at once. */
  async createMonitor(request: MonitorRequest): Promise<Monitor> {
    return unwrap(await this.api.POST('/v1/monitors', { body: request }));
  }

  async getMonitor(monitorId: string): Promise<Monitor> {
    return unwrap(await this.api.GET('/v1/monitors/{monitor_id}', { params: { path: { monitor_id: monitorId } } }));
  }

  async listMonitors(): Promise<Monitor[]> {
    return unwrap(await this.api.GET('/v1/monitors', {})).monitors;
  }

  /** pause, resume, or tick now (409 while paused). */
  async setMonitorState(monitorId: string, action: 'pause' | 'resume' | 'tick'): Promise<Monitor> {
    const path = { params: { path: { monitor_id: monitorId } } };
    if (action === 'pause') return unwrap(await this.api.POST('/v1/monitors/{monitor_id}/pause', path));
    if (action === 'resume') return unwrap(await this.api.POST('/v1/monitors/{monitor_id}/resume', path));
    return unwrap(await this.api.POST('/v1/monitors/{monitor_id}/tick', path));
  }

  async deleteMonitor(monitorId: string): Promise<void> {
    unwrap(await this.api.DELETE('/v1/monitors/{monitor_id}', { params: { path: { monitor_id: monitorId } } }));
  }

  /** The last 100 ticks, newest first; a tick's pages are `allJobs({ batch_id: tick.tick_id })`, each with its `change`. */
  async monitorTicks(monitorId: string): Promise<MonitorTick[]> {
    return unwrap(await this.api.GET('/v1/monitors/{monitor_id}/ticks', { params: { path: { monitor_id: monitorId } } })).ticks;
  }

  /** Pages new, changed or removed, newest first. */
  async monitorChanges(monitorId: string, limit = 100): Promise<PageChangeEntry[]> {
    return unwrap(
      await this.api.GET('/v1/monitors/{monitor_id}/changes', { params: { path: { monitor_id: monitorId }, query: { limit } } }),
    ).changes;
  }

  /** Polls the crawl (backing off) until it has ended; then its pages are `allJobs({ batch_id: crawlId })`. */
  async waitForCrawl(crawlId: string, options: WaitOptions = {}): Promise<Crawl> {
    return untilCompleted(
      () => this.getCrawl(crawlId),
      (c) => `crawl ${crawlId} still ${c.state} (${c.completed + c.failed}/${c.discovered} pages done)`,
      options,
    );
  }

  /**
   * A crawl's webhooks across cursor pages, oldest first: a `crawl.page` per page that ended (with
   * `page_webhooks: true`) and its `crawl.completed`, each with its delivery state.
   */
  async *crawlDeliveries(crawlId: string, pageSize = 100): AsyncGenerator<CrawlWebhookDelivery> {
    yield* paged((cursor) =>
      this.api.GET('/v1/crawl/{crawl_id}/webhook-deliveries', {
        params: { path: { crawl_id: crawlId }, query: { limit: pageSize, ...(cursor ? { cursor } : {}) } },
      }),
    );
  }

  /** One of a crawl's webhooks: every attempt with its answer or error. */
  async crawlDelivery(crawlId: string, deliveryId: string): Promise<WebhookDeliveryLog> {
    return unwrap(
      await this.api.GET('/v1/crawl/{crawl_id}/webhook-deliveries/{delivery_id}', {
        params: { path: { crawl_id: crawlId, delivery_id: deliveryId } },
      }),
    );
  }

  /** Sends one of a crawl's webhooks again now, under the same X-Service-Delivery-Id (409 delivery_in_progress while an attempt runs). */
  async redeliverCrawlDelivery(crawlId: string, deliveryId: string): Promise<WebhookDeliveryLog> {
    return unwrap(
      await this.api.POST('/v1/crawl/{crawl_id}/webhook-deliveries/{delivery_id}/redeliver', {
        params: { path: { crawl_id: crawlId, delivery_id: deliveryId } },
      }),
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
    yield* paged((cursor) =>
      this.api.GET('/v1/async/viability-test', { params: { query: { limit: pageSize, ...(cursor ? { cursor } : {}) } } }),
    );
  }

  /** Every job of a run, across cursor pages (spec 4.5), in the order asked for. */
  async *jobs(collectionId: string, runId: string, query: Omit<JobListQuery, 'cursor'> = {}): AsyncGenerator<JobListingItem> {
    yield* paged((cursor) =>
      this.api.GET('/v1/async/collections/{collection_id}/runs/{run_id}/jobs', {
        params: { path: { collection_id: collectionId, run_id: runId }, query: { ...query, ...(cursor ? { cursor } : {}) } },
      }),
    );
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

/** Polls `read` until its status says completed. */
function untilCompleted<T extends { status: string }>(
  read: () => Promise<T>,
  describe: (last: T) => string,
  options: WaitOptions,
): Promise<T> {
  return untilDone(read, (last) => last.status === 'completed', describe, options);
}

/** Polls `read` (first after pollIntervalMs, then ×1.5 up to 10 s) until `done` holds. */
async function untilDone<T>(
  read: () => Promise<T>,
  done: (last: T) => boolean,
  describe: (last: T) => string,
  options: WaitOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  const deadline = Date.now() + timeoutMs;
  let delay = options.pollIntervalMs ?? 1000;
  for (;;) {
    options.signal?.throwIfAborted();
    const last = await read();
    if (done(last)) return last;
    if (Date.now() + delay > deadline) throw new Error(`${describe(last)} after ${timeoutMs} ms`);
    await sleep(delay, options.signal);
    delay = Math.min(delay * 1.5, 10_000);
  }
}

/** Sends a write under an Idempotency-Key (a new UUID unless given); `replayed` says the answer is the first write's. */
async function underIdempotencyKey<D>(
  given: string | undefined,
  send: (key: string) => Promise<{ data?: D; error?: unknown; response: Response }>,
): Promise<{ body: D; idempotencyKey: string; replayed: boolean }> {
  const idempotencyKey = given ?? randomUUID();
  const result = await send(idempotencyKey);
  return { body: unwrap(result), idempotencyKey, replayed: result.response.headers.get('idempotency-replayed') === 'true' };
}

/** Every item of a cursor-paged listing, following cursor_next while has_more. */
async function* paged<T>(
  page: (
    cursor: string | undefined,
  ) => Promise<{ data?: { items: T[]; cursor_next?: string | null; has_more: boolean }; error?: unknown; response: Response }>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const body = unwrap(await page(cursor));
    yield* body.items;
    cursor = body.has_more && body.cursor_next ? body.cursor_next : undefined;
  } while (cursor);
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
