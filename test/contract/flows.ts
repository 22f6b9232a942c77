import createClient from 'openapi-fetch';
// Types generated from the document the service serves. The flows test type-checks this file
// against types it generates from the live /v1/openapi.json; elsewhere the alias is the SDK's copy.
import type { paths } from '@served-api';

/**
 * The README's flows, written as a client author writes them against the generated types: every
 * operation of the API once, with no casts, no `any` and no non-null assertions (the flows test
 * refuses them), so a type error here is a gap in the document.
 */
export interface FlowContext {
  baseUrl: string;
  adminToken: string;
  /** A local page to scrape. */
  pageUrl: string;
  /** A local webhook receiver. */
  callbackUrl: string;
  fetch: (request: Request) => Promise<Response>;
  pause(ms: number): Promise<void>;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a success; anything else stops the flow with what the service said. */
function ok<T>(what: string, answer: Answer<T>): T {
  if (answer.data === undefined) throw new Error(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data;
}

export async function runEveryOperation(ctx: FlowContext): Promise<void> {
  const anonymous = createClient<paths>({ baseUrl: ctx.baseUrl, fetch: ctx.fetch });
  const admin = createClient<paths>({ baseUrl: ctx.baseUrl, fetch: ctx.fetch, headers: { authorization: `Bearer ${ctx.adminToken}` } });

  // Public.
  const health = ok('health', await anonymous.GET('/v1/health'));
  if (health.status !== 'ok') throw new Error(`platform ${health.status}`);
  ok('liveness', await anonymous.GET('/v1/health/live'));
  // Kubernetes probes and Prometheus (docs/operations.md).
  if (ok('livez', await anonymous.GET('/livez')).status !== 'ok') throw new Error('livez');
  if (ok('readyz', await anonymous.GET('/readyz')).status !== 'ok') throw new Error('readyz');
  const exposition = ok('metrics', await admin.GET('/metrics', { parseAs: 'text' }));
  if (!exposition.includes('scrape_platform_http_requests_total')) throw new Error('metrics without the HTTP family');
  const plans = ok('plans', await anonymous.GET('/v1/plans'));
  const pro = plans.plans.find((plan) => plan.id === 'pro');
  if (!pro || plans.credit_system.browser_request !== 5) throw new Error('plans without pro or browser credits');
  const description = ok('openapi', await anonymous.GET('/v1/openapi.json'));
  if (description.openapi !== '3.0.0') throw new Error(`openapi ${description.openapi}`);

  // Administrator: clients and tokens.
  const created = ok(
    'create client',
    await admin.POST('/v1/admin/clients', { body: { plan: 'enterprise', rate_limit_per_minute: 100_000 } }),
  );
  const spare = ok('create spare client', await admin.POST('/v1/admin/clients', { body: { plan: 'free' } }));
  const rotated = ok(
    'rotate token',
    await admin.POST('/v1/admin/clients/{client_id}/rotate-token', { params: { path: { client_id: spare.client_id } } }),
  );
  if (rotated.token === spare.token) throw new Error('token not rotated');
  const client = createClient<paths>({ baseUrl: ctx.baseUrl, fetch: ctx.fetch, headers: { authorization: `Bearer ${created.token}` } });

  // Sync scrape and download.
  const scraped = ok(
    'scrape',
    await client.POST('/v1/sync/scrape', { body: { url: ctx.pageUrl, format: 'markdown', extract: { title: 'css:h1' } } }),
  );
  if (scraped.statusCode !== 200 || scraped.markdown === null || scraped.guidance.credits_charged !== 1) throw new Error('scrape');
  const refused = await client.POST('/v1/sync/scrape', { body: { url: ctx.pageUrl, screenshot: true } });
  if (refused.error === undefined || !('detail' in refused.error) || !Array.isArray(refused.error.detail))
    throw new Error('screenshot without browser was not a validation error');
  // The same page by its URL in the path, as JSON, cut to a token budget.
  const read = ok(
    'read',
    await client.GET('/v1/read/{path}', {
      params: { path: { path: ctx.pageUrl }, query: { only_main_content: true, max_tokens: 16 } },
      headers: { accept: 'application/json' },
    }),
  );
  if (typeof read === 'string' || read.statusCode !== 200 || read.content_window?.tokenizer !== 'o200k_base') throw new Error('read');
  const downloaded = ok('download', await client.POST('/v1/sync/download', { body: { url: ctx.pageUrl } }));
  if (downloaded.content === null || downloaded.statusCode !== 200) throw new Error('download');
  // A document the client already has: the raw body with its type.
  const converted = ok(
    'convert document',
    await client.POST('/v1/documents/convert', {
      params: { query: { filename: 'prices.csv' } },
      body: 'item,price\nApple,1.20\n',
      bodySerializer: (body) => body,
      headers: { 'content-type': 'text/csv' },
    }),
  );
  if (converted.document.format !== 'csv' || converted.credits_charged !== 1 || !converted.markdown?.includes('| Apple | 1.20 |'))
    throw new Error('convert document');

  // Collections.
  const collection = ok(
    'create collection',
    await client.POST('/v1/async/collections', {
      body: {
        name: 'flows',
        callback_url: ctx.callbackUrl,
        requests: [
          { url: ctx.pageUrl, custom_id: 'a' },
          { url: ctx.pageUrl, custom_id: 'b' },
          { url: ctx.pageUrl, custom_id: 'a' },
        ],
      },
      params: { header: { 'Idempotency-Key': `flows-${Date.now()}` } },
    }),
  );
  const collectionId = collection.id;
  if (collectionId === null || collection.duplicates_skipped !== 1) throw new Error('collection');
  const path = { collection_id: collectionId };
  const listed = ok('list collections', await client.GET('/v1/async/collections', { params: { query: { name: 'flows' } } }));
  if (!listed.some((c) => c.id === collectionId && c.request_count === 2)) throw new Error('collection not listed');
  ok('get collection', await client.GET('/v1/async/collections/{collection_id}', { params: { path } }));
  const renamed = ok(
    'update collection',
    await client.PUT('/v1/async/collections/{collection_id}', { params: { path }, body: { name: 'flows, renamed' } }),
  );
  if (renamed.name !== 'flows, renamed') throw new Error('rename');

  // A run, its jobs and results.
  const started = ok('start run', await client.POST('/v1/async/collections/{collection_id}/run', { params: { path } }));
  const runPath = { collection_id: collectionId, run_id: started.run_id };
  let run = ok('get run', await client.GET('/v1/async/collections/{collection_id}/runs/{run_id}', { params: { path: runPath } }));
  for (let waited = 0; run.status !== 'completed'; waited += 200) {
    if (waited > 60_000) throw new Error('run did not complete');
    await ctx.pause(200);
    run = ok('get run', await client.GET('/v1/async/collections/{collection_id}/runs/{run_id}', { params: { path: runPath } }));
  }
  const runs = ok(
    'list runs',
    await client.GET('/v1/async/collections/{collection_id}/runs', { params: { path, query: { status_filter: 'completed' } } }),
  );
  if (runs.total !== 1 || runs.items[0]?.run_id !== run.run_id) throw new Error('runs');
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10 && seen.length < run.total_requests; pages += 1) {
    const page = ok(
      'jobs',
      await client.GET('/v1/async/collections/{collection_id}/runs/{run_id}/jobs', {
        params: { path: runPath, query: { limit: 1, include_results: true, ...(cursor === undefined ? {} : { cursor }) } },
      }),
    );
    seen.push(...page.items.map((item) => item.job_public_id));
    if (page.has_more && page.cursor_next !== null) cursor = page.cursor_next;
    else if (seen.length < run.total_requests) {
      // The listing lags completion by design (spec 4.5): start again shortly.
      seen.length = 0;
      cursor = undefined;
      await ctx.pause(200);
    }
  }
  const jobId = seen[0];
  if (jobId === undefined || seen.length !== run.total_requests) throw new Error(`jobs listed ${seen.length} of ${run.total_requests}`);
  const result = ok(
    'job result',
    await client.GET('/v1/async/collections/{collection_id}/runs/{run_id}/jobs/{job_id}/result', {
      params: { path: { ...runPath, job_id: jobId } },
    }),
  );
  if (result.status !== 'completed' || result.url !== ctx.pageUrl) throw new Error('job result');
  const gone = await client.GET('/v1/async/collections/{collection_id}/runs/{run_id}/jobs/{job_id}/result', {
    params: { path: { ...runPath, job_id: 'not-a-job' } },
  });
  if (
    gone.error === undefined ||
    !('detail' in gone.error) ||
    typeof gone.error.detail !== 'object' ||
    gone.error.detail === null ||
    !('error_code' in gone.error.detail) ||
    gone.error.detail.error_code !== 'job_id_invalid'
  )
    throw new Error('job_id_invalid');

  // Webhooks: the secret, its delivery log, a redelivery.
  const secret = ok('webhook secret', await client.GET('/v1/webhooks/secret'));
  let log = ok(
    'deliveries',
    await client.GET('/v1/async/collections/{collection_id}/runs/{run_id}/webhook-deliveries', { params: { path: runPath } }),
  );
  for (let waited = 0; log.status !== 'sent'; waited += 200) {
    if (waited > 30_000) throw new Error(`webhook ${log.status}`);
    await ctx.pause(200);
    log = ok(
      'deliveries',
      await client.GET('/v1/async/collections/{collection_id}/runs/{run_id}/webhook-deliveries', { params: { path: runPath } }),
    );
  }
  const rotatedSecret = ok('rotate secret', await client.POST('/v1/webhooks/secret/rotate'));
  if (rotatedSecret.secret === secret.secret) throw new Error('secret not rotated');
  const redelivery = ok(
    'redeliver',
    await client.POST('/v1/async/collections/{collection_id}/runs/{run_id}/webhook-deliveries/redeliver', { params: { path: runPath } }),
  );
  // 202: the attempt is under way; the log shows it once made.
  for (let waited = 0; !log.attempts.some((attempt) => attempt.manual); waited += 200) {
    if (waited > 30_000) throw new Error(`redelivery ${redelivery.delivery_id} not logged`);
    await ctx.pause(200);
    log = ok(
      'deliveries',
      await client.GET('/v1/async/collections/{collection_id}/runs/{run_id}/webhook-deliveries', { params: { path: runPath } }),
    );
  }

  // Country proxies, requested and reviewed.
  const countries = ok('countries', await client.GET('/v1/proxy/countries'));
  if (!countries.countries.includes('DE')) throw new Error('no DE');
  const asked = ok('request country', await client.POST('/v1/proxy/request-country', { body: { country_code: 'DE', reason: 'flows' } }));
  if (asked.status !== 'pending') throw new Error(`request ${asked.status}`);
  const pending = ok('pending requests', await admin.GET('/v1/admin/proxy/requests', { params: { query: { status: 'pending' } } }));
  if (!pending.items.some((item) => item.client_id === created.client_id)) throw new Error('request not pending');
  ok(
    'approve',
    await admin.POST('/v1/admin/proxy/requests/{client_id}/{country_code}', {
      params: { path: { client_id: created.client_id, country_code: 'DE' } },
      body: { decision: 'approve', note: 'ok' },
    }),
  );
  const status = ok('proxy status', await client.GET('/v1/proxy/status'));
  if (!status.approved_countries.includes('DE')) throw new Error('DE not approved');

  // A viability test: started, followed until every URL is analysed, listed.
  const viability = ok(
    'start viability test',
    await client.POST('/v1/async/viability-test', { body: { urls: [ctx.pageUrl], depth: 'quick' } }),
  );
  let analysed = ok(
    'viability run',
    await client.GET('/v1/async/viability-test/{run_id}', { params: { path: { run_id: viability.run_id } } }),
  );
  for (let waited = 0; analysed.results === null; waited += 200) {
    if (waited > 60_000) throw new Error(`viability ${analysed.completed_urls}/${analysed.total_urls}`);
    await ctx.pause(200);
    analysed = ok(
      'viability run',
      await client.GET('/v1/async/viability-test/{run_id}', { params: { path: { run_id: viability.run_id } } }),
    );
  }
  const verdict = analysed.results[0];
  if (
    verdict === undefined ||
    verdict.recommended_strategy !== 'extract_html' ||
    verdict.tests.simple_request === null ||
    verdict.tests.simple_request.credits !== 1
  )
    throw new Error('viability verdict');
  const viabilityRuns = ok('list viability tests', await client.GET('/v1/async/viability-test', { params: { query: { limit: 5 } } }));
  if (viabilityRuns.items[0]?.run_id !== viability.run_id) throw new Error('viability run not listed first');

  // A site map (issue 39): the page's own links, no sitemap, one level.
  const siteMap = ok('map site', await client.POST('/v1/map', { body: { url: ctx.pageUrl, sitemap: 'skip', max_depth: 0 } }));
  if (siteMap.pages_fetched !== 1 || siteMap.count < 1 || siteMap.truncated) throw new Error(`map ${JSON.stringify(siteMap)}`);

  // A crawl (issue 39): the page alone (no links followed, no sitemap), followed until it ends; its page listed; paused, resumed and cancelled on a second one.
  const crawl = ok(
    'start crawl',
    await client.POST('/v1/crawl', {
      body: { url: ctx.pageUrl, sitemap: 'skip', max_depth: 0, max_pages: 1, callback_url: ctx.callbackUrl, page_webhooks: true },
    }),
  );
  let crawled = ok('crawl', await client.GET('/v1/crawl/{crawl_id}', { params: { path: { crawl_id: crawl.crawl_id } } }));
  for (let waited = 0; crawled.status !== 'completed'; waited += 200) {
    if (waited > 60_000) throw new Error(`crawl ${crawled.state}`);
    await ctx.pause(200);
    crawled = ok('crawl', await client.GET('/v1/crawl/{crawl_id}', { params: { path: { crawl_id: crawl.crawl_id } } }));
  }
  if (crawled.completed !== 1 || crawled.zero_pages_reason !== null) throw new Error(`crawl ${JSON.stringify(crawled)}`);
  const crawledPages = ok('crawl pages', await client.GET('/v1/jobs', { params: { query: { batch_id: crawl.crawl_id } } }));
  if (crawledPages.items.length !== 1) throw new Error('crawl pages');
  // Its webhooks: the page's crawl.page and the crawl.completed, listed; one's log; one redelivered.
  const crawlHooksPath = { params: { path: { crawl_id: crawl.crawl_id } } };
  let crawlHooks = ok('crawl deliveries', await client.GET('/v1/crawl/{crawl_id}/webhook-deliveries', crawlHooksPath));
  for (let waited = 0; crawlHooks.items.length < 2; waited += 200) {
    if (waited > 30_000) throw new Error(`crawl deliveries ${JSON.stringify(crawlHooks)}`);
    await ctx.pause(200);
    crawlHooks = ok('crawl deliveries', await client.GET('/v1/crawl/{crawl_id}/webhook-deliveries', crawlHooksPath));
  }
  const pageHook = crawlHooks.items.find((d) => d.event === 'crawl.page');
  if (!pageHook || pageHook.job_id !== crawledPages.items[0].job_id) throw new Error(`crawl.page ${JSON.stringify(crawlHooks)}`);
  const pageHookPath = { params: { path: { crawl_id: crawl.crawl_id, delivery_id: pageHook.delivery_id } } };
  let pageLog = ok('crawl delivery', await client.GET('/v1/crawl/{crawl_id}/webhook-deliveries/{delivery_id}', pageHookPath));
  for (let waited = 0; pageLog.status !== 'sent'; waited += 200) {
    if (waited > 30_000) throw new Error(`crawl.page ${pageLog.status}`);
    await ctx.pause(200);
    pageLog = ok('crawl delivery', await client.GET('/v1/crawl/{crawl_id}/webhook-deliveries/{delivery_id}', pageHookPath));
  }
  ok('redeliver crawl delivery', await client.POST('/v1/crawl/{crawl_id}/webhook-deliveries/{delivery_id}/redeliver', pageHookPath));
  // That crawl's llms.txt (free), and one made by a crawl of its own.
  const llms = ok('llms.txt of a crawl', await client.GET('/v1/llms-txt/{crawl_id}', { params: { path: { crawl_id: crawl.crawl_id } } }));
  if (typeof llms === 'string' || llms.status !== 'completed' || llms.llms_txt === null || !llms.llms_txt.startsWith('# '))
    throw new Error(`llms.txt ${JSON.stringify(llms)}`);
  const llmsCrawl = ok(
    'start llms.txt',
    await client.POST('/v1/llms-txt', { body: { url: ctx.pageUrl, sitemap: 'skip', max_depth: 0, max_pages: 1 } }),
  );
  if (llmsCrawl.crawl_id === crawl.crawl_id) throw new Error('llms.txt reused a crawl');
  const second = ok('start crawl', await client.POST('/v1/crawl', { body: { url: ctx.pageUrl, sitemap: 'skip', max_pages: 5 } }));
  const crawlPath = { params: { path: { crawl_id: second.crawl_id } } };
  ok('pause crawl', await client.PUT('/v1/crawl/{crawl_id}/pause', crawlPath));
  ok('resume crawl', await client.PUT('/v1/crawl/{crawl_id}/resume', crawlPath));
  ok('cancel crawl', await client.POST('/v1/crawl/{crawl_id}/cancel', crawlPath));

  // A monitor (issue 63): created, its first tick waited for, read, its ticks and changes listed,
  // paused, resumed, ticked now and deleted.
  const monitor = ok(
    'create monitor',
    await client.POST('/v1/monitors', { body: { urls: [ctx.pageUrl], schedule: { interval_seconds: 3600 } } }),
  );
  const monitorPath = { params: { path: { monitor_id: monitor.id } } };
  let monitorTicks = ok('monitor ticks', await client.GET('/v1/monitors/{monitor_id}/ticks', monitorPath));
  for (let waited = 0; monitorTicks.ticks[0]?.changes === null || monitorTicks.ticks.length === 0; waited += 200) {
    if (waited > 60_000) throw new Error(`monitor ticks ${JSON.stringify(monitorTicks)}`);
    await ctx.pause(200);
    monitorTicks = ok('monitor ticks', await client.GET('/v1/monitors/{monitor_id}/ticks', monitorPath));
  }
  ok('get monitor', await client.GET('/v1/monitors/{monitor_id}', monitorPath));
  if (!ok('list monitors', await client.GET('/v1/monitors')).monitors.some((m) => m.id === monitor.id))
    throw new Error('monitor not listed');
  const monitorChanges = ok(
    'monitor changes',
    await client.GET('/v1/monitors/{monitor_id}/changes', { params: { path: { monitor_id: monitor.id }, query: { limit: 10 } } }),
  );
  if (monitorChanges.changes[0]?.change_status !== 'new') throw new Error(`monitor changes ${JSON.stringify(monitorChanges)}`);
  ok('pause monitor', await client.POST('/v1/monitors/{monitor_id}/pause', monitorPath));
  ok('resume monitor', await client.POST('/v1/monitors/{monitor_id}/resume', monitorPath));
  ok('tick monitor', await client.POST('/v1/monitors/{monitor_id}/tick', monitorPath));
  ok('delete monitor', await client.DELETE('/v1/monitors/{monitor_id}', monitorPath));

  // Projects and batches (spec 4.8). The project is paused while its batch is run, paused and
  // resumed, so no job can finish under those calls and each answer is the documented 200.
  const project = ok(
    'create project',
    await client.POST('/v1/projects', { body: { name: 'flows', defaults: { format: 'markdown' }, max_concurrent_jobs: 2 } }),
  );
  const projectPath = { project_id: project.project_id };
  ok('get project', await client.GET('/v1/projects/{project_id}', { params: { path: projectPath } }));
  const projects = ok('list projects', await client.GET('/v1/projects', { params: { query: { status: 'active', limit: 10 } } }));
  if (!projects.items.some((p) => p.project_id === project.project_id)) throw new Error('project not listed');
  const paused = ok('pause project', await client.PUT('/v1/projects/{project_id}/pause', { params: { path: projectPath } }));
  if (paused.status !== 'paused') throw new Error(`project ${paused.status}`);
  const batch = ok(
    'create batch',
    await client.POST('/v1/batches', {
      body: {
        project_id: project.project_id,
        name: 'flows',
        callback_url: ctx.callbackUrl,
        requests: [{ url: ctx.pageUrl, custom_id: 'a' }],
      },
      params: { header: { 'Idempotency-Key': `flows-batch-${Date.now()}` } },
    }),
  );
  const batchPath = { batch_id: batch.batch_id };
  const appended = ok(
    'append jobs',
    await client.POST('/v1/batches/{batch_id}/append-jobs', {
      params: { path: batchPath },
      body: {
        requests: [
          { url: ctx.pageUrl, custom_id: 'b' },
          { url: ctx.pageUrl, custom_id: 'a' },
        ],
      },
    }),
  );
  if (appended.total_requests !== 2 || appended.duplicates_skipped !== 1) throw new Error('append');
  ok('run batch', await client.POST('/v1/batches/{batch_id}/run', { params: { path: batchPath } }));
  ok('pause batch', await client.PUT('/v1/batches/{batch_id}/pause', { params: { path: batchPath } }));
  ok('resume batch', await client.PUT('/v1/batches/{batch_id}/resume', { params: { path: batchPath } }));
  ok('resume project', await client.PUT('/v1/projects/{project_id}/resume', { params: { path: projectPath } }));
  let batchNow = ok('get batch', await client.GET('/v1/batches/{batch_id}', { params: { path: batchPath } }));
  for (let waited = 0; batchNow.state !== 'completed'; waited += 200) {
    if (waited > 60_000) throw new Error(`batch ${batchNow.state}`);
    await ctx.pause(200);
    batchNow = ok('get batch', await client.GET('/v1/batches/{batch_id}', { params: { path: batchPath } }));
  }
  let batchLog = ok('batch deliveries', await client.GET('/v1/batches/{batch_id}/webhook-deliveries', { params: { path: batchPath } }));
  for (let waited = 0; batchLog.status !== 'sent'; waited += 200) {
    if (waited > 30_000) throw new Error(`batch webhook ${batchLog.status}`);
    await ctx.pause(200);
    batchLog = ok('batch deliveries', await client.GET('/v1/batches/{batch_id}/webhook-deliveries', { params: { path: batchPath } }));
  }
  ok('batch redeliver', await client.POST('/v1/batches/{batch_id}/webhook-deliveries/redeliver', { params: { path: batchPath } }));
  const batchJobs = ok('list jobs', await client.GET('/v1/jobs', { params: { query: { batch_id: batch.batch_id, status: 'completed' } } }));
  const firstJob = batchJobs.items[0];
  if (firstJob === undefined || batchJobs.items.length !== 2) throw new Error('batch jobs');
  const data = ok('job data', await client.GET('/v1/jobs/{job_id}/data', { params: { path: { job_id: firstJob.job_id } } }));
  if (data.markdown === null) throw new Error('job data without the project default format');
  const summary = ok('projects summary', await client.GET('/v1/projects/summary'));
  if (summary.items.find((p) => p.project_id === project.project_id)?.jobs.completed !== 2) throw new Error('projects summary');
  const credits = ok('credit summary', await client.GET('/v1/credits/summary'));
  const account = ok('account', await client.GET('/v1/account'));
  if (account.is_admin || !account.features.includes('async_batches') || account.rate_limit_per_minute < 1) throw new Error('account');
  if (credits.used < 2 || credits.by_project.find((p) => p.project_id === project.project_id)?.credits !== 2) throw new Error('credits');
  const doomed = ok(
    'create batch',
    await client.POST('/v1/batches', { body: { project_id: project.project_id, requests: [{ url: ctx.pageUrl }] } }),
  );
  const cancelled = ok(
    'cancel batch',
    await client.POST('/v1/batches/{batch_id}/cancel', { params: { path: { batch_id: doomed.batch_id } } }),
  );
  if (cancelled.state !== 'cancelled' || cancelled.cancelled_requests !== 1) throw new Error(`cancel ${cancelled.state}`);
  const closed = ok('close project', await client.PUT('/v1/projects/{project_id}/close', { params: { path: projectPath } }));
  if (closed.status !== 'closed') throw new Error('close');
  // A collection run cancelled as it starts: 200, or 409 invalid_state when it finished first.
  const again = ok('start run', await client.POST('/v1/async/collections/{collection_id}/run', { params: { path } }));
  const cancelRun = await client.POST('/v1/async/collections/{collection_id}/runs/{run_id}/cancel', {
    params: { path: { collection_id: collectionId, run_id: again.run_id } },
  });
  if (cancelRun.data === undefined && cancelRun.response.status !== 409) throw new Error(`cancel run ${cancelRun.response.status}`);

  // Usage and billing.
  const billing = ok('billing', await client.GET('/v1/sync/billing'));
  const mine = billing.clients[created.client_id];
  if (mine === undefined || mine.credits.total < 2) throw new Error('billing');
  const metrics = ok('client metrics', await client.GET('/v1/sync/client-metrics', { params: { query: { detail: 'urls', daily: true } } }));
  if (metrics.totals.requests < 2) throw new Error('client metrics');
  const byDay = Object.values(metrics.daily ?? {});
  if (byDay.length !== 1 || byDay.reduce((n, d) => n + d.simple.requests + d.browser.requests, 0) !== metrics.totals.requests)
    throw new Error('client metrics by day');
  const platform = ok('platform metrics', await admin.GET('/v1/sync/metrics', { params: { query: { metric: 'exe_time' } } }));
  if (platform.exe_time === undefined) throw new Error('platform metrics');

  // The agent endpoint: one MCP tool call as plain HTTP (what an MCP client sends), and the 405s of a stateless server.
  const mcpHeaders = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  const toolCall = ok(
    'mcp tools/call',
    await client.POST('/mcp', {
      headers: mcpHeaders,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'check_billing', arguments: {} } },
    }),
  );
  const answered = Array.isArray(toolCall) ? toolCall[0] : toolCall;
  if (answered === undefined || answered.result === undefined || answered.result.isError === true)
    throw new Error(`mcp tools/call ${JSON.stringify(answered)}`);
  for (const refused of [await client.GET('/mcp', { headers: mcpHeaders }), await client.DELETE('/mcp', { headers: mcpHeaders })]) {
    if (refused.response.status !== 405) throw new Error(`mcp ${refused.response.url} answered ${refused.response.status}, not 405`);
  }

  // And the collection goes.
  const deleted = ok('delete collection', await client.DELETE('/v1/async/collections/{collection_id}', { params: { path } }));
  if (!deleted.deleted) throw new Error('delete');
}
