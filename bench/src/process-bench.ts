import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { pacedFlood, runLoad } from './load';

/**
 * The platform as operators run it, in its own processes, measured from outside: `npm start`'s
 * process (memory at idle, under load and after it; pages/s and memory at 1, 4, 16 and 64 in
 * flight) and `npm run stack` (every context its own process over local NATS and Postgres).
 */
const ROOT = path.resolve(__dirname, '../../..');
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const ADMIN_TOKEN = `adm_bench_${randomBytes(12).toString('hex')}`;

export interface CurvePoint {
  inFlight: number;
  pagesPerSecond: number;
  directPagesPerSecond: number;
  p50Ms: number;
  pssMb: number;
}

export interface EmbeddedProcessBench {
  idleFirstStartMb: number;
  idleRestartMb: number;
  afterScrapesMb: number;
  /** The same once idle again (the idle reclaimer has run). */
  idleAfterScrapesMb: number;
  scrapes: number;
  peakMb: number;
  curve: CurvePoint[];
}

/** `npm start`'s process tree (browsers included), PSS in MB: idle, under the cost curve's load, after it. */
export async function benchEmbeddedProcess(
  pageUrl: string,
  allowlist: string,
  seconds: number,
  direct: (inFlight: number) => Promise<number>,
): Promise<EmbeddedProcessBench> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-bench-process-'));
  // The idle reclaimer runs after 2 s of idleness here instead of the default 30 s, so that "idle" is reached within settle().
  const env = {
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    TARGET_ALLOWLIST: allowlist,
    ADMIN_TOKEN,
    MEMORY_RECLAIM_IDLE_SECONDS: String(RECLAIM_IDLE_SECONDS),
  };
  try {
    let platform = await startPlatformProcess(env);
    await settle();
    const idleFirstStartMb = pssOfTreeMb(platform.child.pid!);
    await platform.stop();
    platform = await startPlatformProcess(env);
    await settle();
    const idleRestartMb = pssOfTreeMb(platform.child.pid!);
    let peakMb = idleRestartMb;
    const sampler = setInterval(() => (peakMb = Math.max(peakMb, pssOfTreeMb(platform.child.pid!))), 200);
    try {
      const token = await createBenchClient(platform.url);
      const curve: CurvePoint[] = [];
      let scrapes = 0;
      for (const inFlight of [1, 4, 16, 64]) {
        const load = await runLoad(
          `${platform.url}/v1/sync/scrape`,
          { authorization: `Bearer ${token}` },
          inFlight,
          seconds,
          JSON.stringify({ url: pageUrl }),
        );
        scrapes += load.requests;
        curve.push({
          inFlight,
          pagesPerSecond: load.perSecond,
          directPagesPerSecond: await direct(inFlight),
          p50Ms: load.p50Ms,
          pssMb: pssOfTreeMb(platform.child.pid!),
        });
      }
      const afterScrapesMb = pssOfTreeMb(platform.child.pid!);
      await settle();
      const idleAfterScrapesMb = pssOfTreeMb(platform.child.pid!);
      return { idleFirstStartMb, idleRestartMb, afterScrapesMb, idleAfterScrapesMb, scrapes, peakMb, curve };
    } finally {
      clearInterval(sampler);
      await platform.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface DistributedBench {
  pagesPerSecond: number;
  p50Ms: number;
  non2xx: number;
  pssMb: number;
  refusal: RefusalUnderFlood;
}

/** Another client's calls while one floods past its rate limit, against the same calls unloaded. */
export interface RefusalUnderFlood {
  unloadedP50Ms: number;
  floodedP50Ms: number;
  refusalsPerSecond: number;
  floodNon429: number;
}

/** `npm run stack` against the machine's NATS and a fresh Postgres database; null when either is not reachable. */
export async function benchDistributed(
  pageUrl: string,
  allowlist: string,
  inFlight: number,
  seconds: number,
): Promise<DistributedBench | null> {
  if (!(await reachable(POSTGRES_ADMIN_URL)) || !(await reachable(NATS_URL))) return null;
  const database = `scrape_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database "${database}"`);
  const databaseUrl = new URL(POSTGRES_ADMIN_URL);
  databaseUrl.pathname = `/${database}`;
  const port = await freePort();
  const stack = spawnNode([...NPM_SCRIPT_FLAGS, 'scripts/stack.js'], {
    ...NPM_SCRIPT_ENV,
    NATS_URL,
    DATABASE_URL: databaseUrl.toString(),
    WEBHOOK_SECRET_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    ADMIN_TOKEN,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    TARGET_ALLOWLIST: allowlist,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntil(async () => (await fetch(`${url}/v1/health`).catch(() => null))?.status === 200, 120_000, stack.output);
    const token = await createBenchClient(url);
    // Warm-up: the first requests open connections and fill caches in every process.
    await runLoad(`${url}/v1/sync/scrape`, { authorization: `Bearer ${token}` }, inFlight, 2, JSON.stringify({ url: pageUrl }));
    const load = await runLoad(
      `${url}/v1/sync/scrape`,
      { authorization: `Bearer ${token}` },
      inFlight,
      seconds,
      JSON.stringify({ url: pageUrl }),
    );
    const pssMb = pssOfTreeMb(stack.child.pid!);
    return {
      pagesPerSecond: load.perSecond,
      p50Ms: load.p50Ms,
      non2xx: load.non2xx,
      pssMb,
      refusal: await refusalUnderFlood(url, token, seconds),
    };
  } finally {
    await stack.stop();
    await adminQuery(`drop database if exists "${database}" with (force)`);
  }
}

/** PSS of a process and every process below it, MB (Linux; 0 where /proc is not readable). */
export function pssOfTreeMb(rootPid: number): number {
  return memoryOfTreeMb(rootPid).pssMb;
}

/** PSS and RSS of a process and every process below it, MB, from one read of each one's smaps_rollup. */
export function memoryOfTreeMb(rootPid: number): { pssMb: number; rssMb: number } {
  let pssKb = 0;
  let rssKb = 0;
  const visit = (pid: number) => {
    try {
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      pssKb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      rssKb += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
        const children = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
        if (children) for (const child of children.split(/\s+/)) visit(Number(child));
      }
    } catch {
      // The process ended while being read.
    }
  };
  visit(rootPid);
  return { pssMb: Math.round(pssKb / 1024), rssMb: Math.round(rssKb / 1024) };
}

interface RunningProcess {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

function spawnNode(args: string[], env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** What `npm start` runs (scripts/start.js → this, with the same V8 flags and allocator settings), on a free port. */
async function startPlatformProcess(env: Record<string, string>): Promise<RunningProcess & { url: string }> {
  const port = await freePort();
  const proc = spawnNode([...NPM_SCRIPT_FLAGS, 'dist/apps/platform/src/main.js'], {
    ...env,
    ...NPM_SCRIPT_ENV,
    PORT: String(port),
  });
  await waitUntil(async () => proc.output().includes('listening on'), 120_000, proc.output);
  return { ...proc, url: `http://127.0.0.1:${port}` };
}

/**
 * One client floods GET /v1/account far past its limit (a free plan, 10 a minute) at
 * REFUSAL_FLOOD_RATE requests a second (open loop, from a worker thread) while another reads the
 * same endpoint one call at a time: the other's p50 against its own p50 with nobody flooding.
 * Refusal must be cheap (issue 34: ≤ 2× at 2,000 requests a second).
 */
export const REFUSAL_FLOOD_RATE = 2000;

async function refusalUnderFlood(url: string, token: string, seconds: number): Promise<RefusalUnderFlood> {
  const flooder = await createBenchClient(url, { plan: 'free' });
  const account = `${url}/v1/account`;
  const unloaded = await runLoad(account, { authorization: `Bearer ${token}` }, 1, seconds);
  const [flood, flooded] = await Promise.all([
    pacedFlood(account, { authorization: `Bearer ${flooder}` }, REFUSAL_FLOOD_RATE, seconds),
    runLoad(account, { authorization: `Bearer ${token}` }, 1, seconds),
  ]);
  return {
    unloadedP50Ms: unloaded.p50Ms,
    floodedP50Ms: flooded.p50Ms,
    refusalsPerSecond: flood.perSecond - Math.round(flood.non429 / seconds),
    // The flooder's first 10 calls of the minute are served.
    floodNon429: flood.non429,
  };
}

async function createBenchClient(
  url: string,
  body: Record<string, unknown> = { plan: 'enterprise', rate_limit_per_minute: 1_000_000 },
): Promise<string> {
  const res = await fetch(`${url}/v1/admin/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`creating the bench client: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

// What package.json's start and stack scripts run node with (V8 flags, glibc allocator settings).
const NPM_SCRIPT_FLAGS = ['--expose-gc', '--max-semi-space-size=32'];
const NPM_SCRIPT_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' };

export const RECLAIM_IDLE_SECONDS = 2;
// Idle means after start-up work (migrations, the first sweeps) is over and memory has stopped falling: the reclaimer
// runs within seconds, but the process keeps giving memory back for about 40 s after a start (measured by hand: 342 MB at
// 15–30 s, 276–283 MB from 50 s on).
const settle = () => new Promise((r) => setTimeout(r, 45_000));

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms; output:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
