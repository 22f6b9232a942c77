import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one scrape at a time costs through each answer of the page cache (decision 0037), p50 in ms. */
export interface PageCacheFigures {
  samples: number;
  /** GET /v1/account: what any authenticated call costs at the gateway. */
  accountP50Ms: number;
  fetchP50Ms: number;
  hitP50Ms: number;
  revalidatedP50Ms: number;
  browserSamples: number;
  browserFetchP50Ms: number;
  browserRevalidatedP50Ms: number;
  /** Answers that were not the cache status expected of them (goal 0). */
  unexpected: number;
}

const ARTICLE = `<h1>Cached page</h1>${'<p>Readable paragraph text for the page cache benchmark. </p>'.repeat(800)}`;

/**
 * The same 49 KB article at /p/<n>, with an ETag: a conditional request naming it is answered 304,
 * as an origin that keeps validators does. Every page its own URL, so each measured request meets
 * the cache in the state it is measuring.
 */
export async function startValidatingOrigin(): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.headers['if-none-match'] === '"v1"') return res.writeHead(304, { etag: '"v1"' }).end();
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: '"v1"' })
      .end(`<!doctype html><html><head><title>Cached</title></head><body>${ARTICLE}</body></html>`);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function benchPageCache(
  platformUrl: string,
  token: string,
  origin: { url: string },
  samples = 200,
  browserSamples = 20,
): Promise<PageCacheFigures> {
  let unexpected = 0;
  const scrape = async (body: Record<string, unknown>, expect?: string) => {
    const response = await fetch(`${platformUrl}/v1/sync/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const result = (await response.json()) as { cache?: { status: string } };
    if (expect && result.cache?.status !== expect) unexpected += 1;
  };
  const timed = async (count: number, one: (i: number) => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const started = performance.now();
      await one(i);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return Math.round(times[Math.floor(times.length / 2)] * 10) / 10;
  };
  const page = (kind: string, i: number) => `${origin.url}/p/${kind}-${i}`;
  {
    for (let i = 0; i < 10; i += 1) await scrape({ url: page('warm', i), max_age: 3600 });
    const accountP50Ms = await timed(samples, () =>
      fetch(`${platformUrl}/v1/account`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text()),
    );
    // A fetch kept for later: the same pages are then a hit, and (once stale) a revalidation.
    const fetchP50Ms = await timed(samples, (i) => scrape({ url: page('simple', i), max_age: 3600 }, 'miss'));
    await new Promise((resolve) => setTimeout(resolve, 500)); // the last entries are kept after their answers
    const hitP50Ms = await timed(samples, (i) => scrape({ url: page('simple', i), max_age: 3600 }, 'hit'));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const revalidatedP50Ms = await timed(samples, (i) => scrape({ url: page('simple', i), max_age: 1 }, 'revalidated'));
    const browser = { browser: true, browser_type: 'light' };
    const browserFetchP50Ms = await timed(browserSamples, (i) => scrape({ url: page('browser', i), max_age: 3600, ...browser }, 'miss'));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const browserRevalidatedP50Ms = await timed(browserSamples, (i) =>
      scrape({ url: page('browser', i), max_age: 1, ...browser }, 'revalidated'),
    );
    return {
      samples,
      accountP50Ms,
      fetchP50Ms,
      hitP50Ms,
      revalidatedP50Ms,
      browserSamples,
      browserFetchP50Ms,
      browserRevalidatedP50Ms,
      unexpected,
    };
  }
}
