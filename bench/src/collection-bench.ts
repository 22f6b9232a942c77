/**
 * 1000 URLs as `collections` collections (1000 ÷ collections each) run at once, end to end
 * (create → POST run → every run completed, polled every 50 ms), against the same 1000 fetches
 * done directly with got-scraping at the same concurrency the service's workers use, in the same
 * process.
 */
export interface CollectionBenchResult {
  collections: number;
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
  collections = 1,
): Promise<CollectionBenchResult> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const urls = Array.from({ length: 1000 }, (_, i) => `${pageUrl}?c=${collections}&i=${i}`);
  const share = Math.ceil(urls.length / collections);
  const created = await Promise.all(
    Array.from({ length: collections }, (_, c) =>
      call<{ id: string }>(
        `${baseUrl}/v1/async/collections`,
        {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `bench-${c}`, requests: urls.slice(c * share, (c + 1) * share).map((url) => ({ url })) }),
        },
        201,
      ),
    ),
  );

  const started = performance.now();
  const runs = await Promise.all(
    created.map(async (collection) => ({
      collection: collection.id,
      run: (await call<{ run_id: string }>(`${baseUrl}/v1/async/collections/${collection.id}/run`, { method: 'POST', headers }, 201))
        .run_id,
    })),
  );
  type RunStatus = { status: string; success_requests: number; total_requests: number };
  let statuses: RunStatus[];
  for (;;) {
    statuses = await Promise.all(
      runs.map((r) => call<RunStatus>(`${baseUrl}/v1/async/collections/${r.collection}/runs/${r.run}`, { headers }, 200)),
    );
    if (statuses.every((s) => s.status === 'completed')) break;
    if (performance.now() - started > RUN_DEADLINE_MS)
      throw new Error(`the bench runs did not complete in ${RUN_DEADLINE_MS / 1000} s: ${JSON.stringify(statuses)}`);
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
    collections,
    wallSeconds: round(wallSeconds),
    jobsPerSecond: round(1000 / wallSeconds),
    directWallSeconds: round(directWallSeconds),
    directJobsPerSecond: round(1000 / directWallSeconds),
    success: statuses.reduce((sum, s) => sum + s.success_requests, 0),
    total: statuses.reduce((sum, s) => sum + s.total_requests, 0),
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
