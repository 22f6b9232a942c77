import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
// Ports from below the ephemeral range: a server binds them a moment later (see its comment there).
import { freePort } from '../e2e/support/service-process';

/**
 * Infrastructure servers a test run owns, on ports of their own.
 *
 * Why: a queue group on a shared NATS spans every process subscribed to it, so two test runs on
 * one machine (a developer's run beside a CI clone) answered each other's requests — a credit
 * hold reached one run's billing-meter and its commit the other's. Fault-injection tests also
 * have to stop and restart NATS and Postgres, which must never touch the machine's own servers.
 */
export interface PrivateServer {
  url: string;
  port: number;
  /** kill -9: the server is gone at once, as in a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  dispose(): Promise<void>;
  /** NATS only: the server's HTTP monitoring address (/connz lists who is connected). */
  monitorUrl?: string;
}

export const NATS_SERVER_BINARY = process.env.NATS_SERVER_BINARY ?? '/usr/sbin/nats-server';

export function natsServerAvailable(): boolean {
  return fs.existsSync(NATS_SERVER_BINARY);
}

async function waitForPort(port: number, timeoutMs: number, what: string, child: () => ChildProcess | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    const c = child();
    if (c && c.exitCode !== null) throw new Error(`${what} exited with ${c.exitCode}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

async function killChild(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

/** nats-server with JetStream on its own port and store directory. */
export async function startPrivateNats(label = 'nats'): Promise<PrivateServer> {
  const port = await freePort();
  const monitorPort = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `test-${label}-`));
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(NATS_SERVER_BINARY, ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitorPort), '-js', '-sd', dir], {
      stdio: 'ignore',
    });
    await waitForPort(port, 15_000, 'nats-server', () => child);
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    monitorUrl: `http://127.0.0.1:${monitorPort}`,
    kill: () => killChild(child),
    start,
    async dispose() {
      await killChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Debian's PostgreSQL server binaries, for a private cluster (initdb refuses to run as root). */
function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0], 'bin') : null;
}

export function privatePostgresAvailable(): boolean {
  return postgresBinDir() !== null;
}

/** A throw-away Postgres cluster (trust auth, database `test`) that a test may crash and restart. */
export async function startPrivatePostgres(label = 'pg'): Promise<PrivateServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `test-${label}-`));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const run = (file: string, args: string[]) =>
    asRoot
      ? spawn('runuser', ['-u', 'postgres', '--', path.join(bin, file), ...args], { stdio: 'ignore' })
      : spawn(path.join(bin, file), args, { stdio: 'ignore' });
  const data = path.join(dir, 'data');
  await new Promise<void>((resolve, reject) => {
    const init = run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    init.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`initdb exited with ${code}`))));
  });
  /** The running postmaster's pid, from the file it keeps in its data directory. */
  const postmasterPid = (): number | null => {
    const pidFile = path.join(data, 'postmaster.pid');
    return fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) || null : null;
  };
  let child: ChildProcess | null = null;
  const start = async () => {
    child = run('postgres', ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off']);
    await waitForPort(port, 30_000, 'postgres', () => child);
    // Accepting connections is later than listening during recovery after a crash.
    const { Client } = await import('pg');
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
      try {
        await client.connect();
        await client.query('select 1');
        await client.end();
        break;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  await start();
  const { Client } = await import('pg');
  const admin = new Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('create database test');
  await admin.end();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/test`,
    port,
    // runuser stays the parent: kill the postmaster itself so the crash is real.
    kill: async () => {
      const pid = postmasterPid();
      if (pid) signal(pid, 'SIGKILL');
      await killChild(child);
      // The postmaster's children notice it is gone and exit; wait until it is.
      const deadline = Date.now() + 10_000;
      while (pid && Date.now() < deadline && signal(pid, 0)) await new Promise((r) => setTimeout(r, 50));
    },
    start,
    async dispose() {
      const pid = postmasterPid();
      if (pid) signal(pid, 'SIGKILL');
      await killChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sends `sig` to `pid`; false when there is no such process (any more). */
function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}
