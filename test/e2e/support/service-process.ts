import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');

/**
 * Compiles dist/ if any source is newer (the process specs run the real entry points). Under a
 * lock: jest workers running side by side must not compile into the same dist/ at once.
 */
export function buildDist(): void {
  underBuildLock(() => execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.js'), '--if-needed'], { cwd: ROOT, stdio: 'pipe' }));
}

/** Runs `work` while holding this checkout's build lock (a directory: mkdir is atomic), waiting up to 10 minutes for it. */
export function underBuildLock<T>(work: () => T): T {
  const lock = path.join(os.tmpdir(), `scrape-platform-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock older than the longest build is a run that died holding it.
      if (Date.now() - fs.statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 600_000) fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`the build lock ${lock} stayed taken for 10 minutes`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

// Ports handed to processes that bind them later come from below the kernel's ephemeral range
// (32768-60999 here): a port from port 0 is ephemeral, and in the meantime any outgoing connection
// of any process (NATS, Postgres, a browser) may take it as its local port. Each jest worker (and
// the parent, slice 0) draws from its own slice, so two workers never hand out the same port.
const PORT_SLICE = 1_500;
const slice = Number(process.env.JEST_WORKER_ID ?? 0) % 8;
const RESERVED_PORTS = { from: 20_000 + slice * PORT_SLICE, to: 20_000 + (slice + 1) * PORT_SLICE };
const handedOut = new Set<number>();

/** A port that is free now and outside the ephemeral range, never handed out twice in this process. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const port = RESERVED_PORTS.from + Math.floor(Math.random() * (RESERVED_PORTS.to - RESERVED_PORTS.from));
    if (handedOut.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      // The wildcard address, as the services bind (::), so a port taken on any address is skipped.
      server.listen(port, () => server.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${RESERVED_PORTS.from} and ${RESERVED_PORTS.to}`);
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Starts `node <entry>` with a clean environment plus `env`, capturing its output. */
export function startProcess(name: string, entry: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    name,
    child,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export function startService(name: string, env: Record<string, string>): ServiceProcess {
  return startProcess(name, `dist/apps/${name}/src/main.js`, env);
}

/** Polls `probe` until it returns true; fails with the process output when it never does. */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  processes: ServiceProcess[] = [],
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    const dead = processes.find((p) => p.child.exitCode !== null);
    if (dead) throw new Error(`${dead.name} exited (${dead.child.exitCode}) while waiting for ${what}:\n${dead.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}:\n${processes.map((p) => `--- ${p.name}\n${p.output()}`).join('\n')}`);
}

export async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url);
  return res.ok;
}
