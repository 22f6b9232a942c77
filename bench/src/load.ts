import http from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

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

export interface PacedFloodResult {
  sent: number;
  perSecond: number;
  /** Answers that were not 429 (a flooder's first calls of the minute are served). */
  non429: number;
  /** Requests not sent because `maxInFlight` were already waiting (the server fell behind). */
  skipped: number;
}

/**
 * Open-loop load: `ratePerSecond` requests a second whatever the answers' pace (what a flooding
 * client does, unlike closed-loop load, which slows down with the server), from a worker thread
 * so that the client measured beside it does not share an event loop with the flood. At most
 * `maxInFlight` wait at once; the rest of a tick is skipped and counted. Loopback only.
 */
export function pacedFlood(
  url: string,
  headers: Record<string, string>,
  ratePerSecond: number,
  seconds: number,
  maxInFlight = 256,
): Promise<PacedFloodResult> {
  const target = new URL(url);
  if (!['127.0.0.1', 'localhost'].includes(target.hostname)) throw new Error('benchmarks only target loopback');
  const worker = new Worker(__filename, { workerData: { role: PACED_FLOOD_ROLE, url, headers, ratePerSecond, seconds, maxInFlight } });
  return new Promise((resolve, reject) => {
    worker.once('message', (result: PacedFloodResult) => resolve(result));
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`the flood worker exited with ${code}`)));
  });
}

const PACED_FLOOD_ROLE = 'paced-flood';

async function runPacedFlood(options: {
  url: string;
  headers: Record<string, string>;
  ratePerSecond: number;
  seconds: number;
  maxInFlight: number;
}): Promise<PacedFloodResult> {
  const target = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxInFlight });
  const TICK_MS = 10;
  let sent = 0;
  let non429 = 0;
  let skipped = 0;
  let inFlight = 0;
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  const send = () => {
    inFlight += 1;
    sent += 1;
    const done = new Promise<void>((resolve) => {
      const req = http.request(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, headers: options.headers, agent },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 429) non429 += 1;
            resolve();
          });
        },
      );
      req.on('error', () => resolve());
      req.end();
    }).finally(() => {
      inFlight -= 1;
      pending.delete(done);
    });
    pending.add(done);
  };
  // What is owed follows the clock, not the ticks (a timer fires a little late, every time).
  for (let now = performance.now(); now - started < options.seconds * 1000; now = performance.now()) {
    const owed = Math.floor(((now - started) / 1000) * options.ratePerSecond) - sent - skipped;
    for (let i = 0; i < owed; i += 1) {
      if (inFlight >= options.maxInFlight) skipped += 1;
      else send();
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  await Promise.all(pending);
  agent.destroy();
  const elapsed = (performance.now() - started) / 1000;
  return { sent, perSecond: Math.round(sent / elapsed), non429, skipped };
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === PACED_FLOOD_ROLE) {
  void runPacedFlood(workerData).then((result) => parentPort!.postMessage(result));
}

/** The middle value (the upper of the two middle ones for an even count); 0 for none. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
