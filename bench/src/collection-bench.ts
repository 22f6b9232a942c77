/**
 * A 1000-URL collection run end to end (create → POST run → completed, polled every 50 ms)
 * against the same 1000 fetches done directly with got-scraping at the same concurrency the
 * service's workers use, in the same process.
 */
export interface CollectionBenchResult {
  wallSeconds: number;
  jobsPerSecond: number;
  directWallSeconds: number;
  directJobsPerSecond: number;
  success: number;
  total: number;
}

export async function benchCollectionRun(
  baseUrl: string,
  token: string,
  pageUrl: string,
  workerConcurrency: number,
  directFetch: (url: string) => Promise<unknown>,
): Promise<CollectionBenchResult> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const urls = Array.from({ length: 1000 }, (_, i) => `${pageUrl}?i=${i}`);
  const collection = await call<{ id: string }>(
    `${baseUrl}/v1/async/collections`,
    { method: 'POST', headers, body: JSON.stringify({ name: 'bench', requests: urls.map((url) => ({ url })) }) },
    201,
  );

  const started = performance.now();
  const run = await call<{ run_id: string }>(`${baseUrl}/v1/async/collections/${collection.id}/run`, { method: 'POST', headers }, 201);
  let status: { status: string; success_requests: number; total_requests: number };
  for (;;) {
    status = await call<typeof status>(`${baseUrl}/v1/async/collections/${collection.id}/runs/${run.run_id}`, { headers }, 200);
    if (status.status === 'completed') break;
    if (performance.now() - started > RUN_DEADLINE_MS)
      throw new Error(`the bench run did not complete in ${RUN_DEADLINE_MS / 1000} s: ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const wallSeconds = (performance.now() - started) / 1000;

  const directStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: workerConcurrency }, async () => {
      while (next < urls.length) await directFetch(urls[next++]);
    }),
  );
  const directWallSeconds = (performance.now() - directStarted) / 1000;
  return {
    wallSeconds: round(wallSeconds),
    jobsPerSecond: round(1000 / wallSeconds),
    directWallSeconds: round(directWallSeconds),
    directJobsPerSecond: round(1000 / directWallSeconds),
    success: status.success_requests,
    total: status.total_requests,
  };
}

const RUN_DEADLINE_MS = 600_000;

/** One call to the service; any other status than `expected` stops the bench with the answer. */
export async function call<T>(url: string, init: RequestInit, expected: number): Promise<T> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${init.method ?? 'GET'} ${url} → ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
