import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');

/** Compiles dist/ if any source is newer (the process specs run the real entry points). */
export function buildDist(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.js'), '--if-needed'], { cwd: ROOT, stdio: 'pipe' });
}

// Ports handed to processes that bind them later come from below the kernel's ephemeral range
// (32768-60999 here): a port from port 0 is ephemeral, and in the meantime any outgoing connection
// of any process (NATS, Postgres, a browser) may take it as its local port.
const RESERVED_PORTS = { from: 20_000, to: 32_000 };
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
