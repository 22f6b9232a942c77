import 'reflect-metadata';
import { loadPlatformConfig } from '@lib/config';
import { SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import fastify from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPlatform } from '../../apps/platform/src/platform';
import { runLoad } from './load';

/**
 * `npm run bench` (operator contract §6): every figure is a ratio against a baseline measured in
 * the same run on the same machine, so it holds on a noisy one. Scrape figures join as the scrape
 * endpoints land; until then they are listed as pending rather than invented.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

async function main(): Promise<void> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-bench-'));
  const platform = await startPlatform(loadPlatformConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }));
  const admin = platform.bootstrapTokens.find((t) => t.clientId === 'admin')!.token!;
  const created = await fetch(`${platform.url}/v1/admin/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ plan: 'enterprise', rate_limit_per_minute: 1_000_000 }),
  }).then((r) => r.json() as Promise<{ token: string }>);
  const plansBody = await fetch(`${platform.url}/v1/plans`).then((r) => r.text());

  // Baseline: a bare Fastify server returning the same body, no auth, no limits, no headers.
  const bare = fastify({ logger: false });
  bare.get('/v1/plans', async (_req, reply) => reply.type('application/json').send(plansBody));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/v1/plans`;

  const baseline = await runLoad(bareUrl, {}, CONCURRENCY, SECONDS);
  const gateway = await runLoad(`${platform.url}/v1/plans`, { authorization: `Bearer ${created.token}` }, CONCURRENCY, SECONDS);
  const bus = platform.gateway.get(MessageBus);
  const rpc = await timeLoop(() => bus.request(SUBJECTS.billing.quotaQuery, { client_id: 'bench', monthly_credits: 1000 }), SECONDS);

  clearInterval(sampler);
  const rows = [
    { figure: 'authenticated request through the gateway ÷ bare Fastify (same body)', value: ratio(gateway.perSecond, baseline.perSecond), detail: `${gateway.perSecond} vs ${baseline.perSecond} req/s; p50 ${gateway.p50Ms} vs ${baseline.p50Ms} ms; p99 ${gateway.p99Ms} vs ${baseline.p99Ms} ms; non-2xx ${gateway.non2xx}` },
    { figure: 'quota query over the in-process bus (round trips/s, incl. database)', value: rpc.perSecond, detail: `${rpc.count} round trips in ${rpc.seconds.toFixed(1)} s` },
    { figure: 'peak RSS of the embedded platform under this load (MB)', value: Math.round(peakRss / 1024 / 1024), detail: 'whole process: 8 contexts + load generator' },
    { figure: 'simple scrape throughput ÷ direct got-scraping loop', value: null, detail: 'pending: arrives with the sync scrape (issue 3)' },
    { figure: 'browser scrape pages/s ÷ bare puppeteer (light, heavy)', value: null, detail: 'pending: browser mode (issue 4)' },
    { figure: '1000-URL collection run: wall time, jobs/s, ÷ direct', value: null, detail: 'pending: batches (issue 5)' },
    { figure: 'HTML→markdown MB/s', value: null, detail: 'pending: formats (issue 3)' },
  ];
  const results = { at: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, seconds: SECONDS, concurrency: CONCURRENCY, rows };
  fs.mkdirSync(path.resolve(__dirname, '../../../bench'), { recursive: true });
  const out = path.resolve(process.cwd(), 'bench/results.json');
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.table(rows.map((r) => ({ figure: r.figure, value: r.value ?? '—', detail: r.detail })));
  console.log(`written ${out}`);

  await bare.close();
  await platform.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

function ratio(a: number, b: number): number {
  return Math.round((a / b) * 1000) / 1000;
}

async function timeLoop(fn: () => Promise<unknown>, seconds: number): Promise<{ count: number; seconds: number; perSecond: number }> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let count = 0;
  while (performance.now() < deadline) {
    await fn();
    count += 1;
  }
  const elapsed = (performance.now() - started) / 1000;
  return { count, seconds: elapsed, perSecond: Math.round(count / elapsed) };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
