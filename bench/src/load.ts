import http from 'node:http';

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

/**
 * Closed-loop load: `concurrency` keep-alive connections, each sending the next request as soon
 * as the previous answer is read, for `seconds`. Bounded in time and only ever aimed at loopback.
 */
export async function runLoad(
  url: string,
  headers: Record<string, string>,
  concurrency: number,
  seconds: number,
  body?: string,
): Promise<LoadResult> {
  const target = new URL(url);
  if (!['127.0.0.1', 'localhost'].includes(target.hostname)) throw new Error('benchmarks only target loopback');
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let non2xx = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const t0 = performance.now();
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: body ? 'POST' : 'GET',
          headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
          agent,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - t0);
            if ((res.statusCode ?? 0) >= 300) non2xx += 1;
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 100) / 100;
  return {
    requests: latencies.length,
    seconds: elapsed,
    perSecond: Math.round(latencies.length / elapsed),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    non2xx,
  };
}
