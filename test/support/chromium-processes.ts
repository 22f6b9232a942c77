import { execFileSync } from 'node:child_process';

export interface ChromiumProcess {
  pid: number;
  ppid: number;
  /** The executable path (first word of the command line). */
  exe: string;
  /** A browser's main process (started by a non-Chromium parent); the rest are its zygotes, renderers and helpers. */
  main: boolean;
  renderer: boolean;
  /** Chromium's own name for a child (`--type=`, with `--utility-sub-type=` for utilities); null for a main process. */
  type: string | null;
}

/** Every Chromium process below `root` (this process by default), from `ps`. */
export function chromiumProcessesBelow(root = process.pid): ChromiumProcess[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), zombie: m[3].startsWith('Z'), exe: m[4], args: m[5] }));
  const below = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of rows) {
      if (below.has(r.ppid) && !below.has(r.pid)) {
        below.add(r.pid);
        grew = true;
      }
    }
  }
  // A zombie has exited and only waits for its parent to reap it: it is no longer a process to count.
  const chromium = rows.filter((r) => r.pid !== root && below.has(r.pid) && !r.zombie && /chrom/i.test(r.exe));
  const chromiumPids = new Set(chromium.map((r) => r.pid));
  return chromium.map((r) => ({
    pid: r.pid,
    ppid: r.ppid,
    exe: r.exe,
    main: !chromiumPids.has(r.ppid),
    renderer: /--type=renderer/.test(r.args),
    type: processType(r.args),
  }));
}

/** Whether a process is still alive (signal 0 probes without touching it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function processType(args: string): string | null {
  const type = /--type=(\S+)/.exec(args)?.[1] ?? null;
  const sub = /--utility-sub-type=(\S+)/.exec(args)?.[1];
  return type && sub ? `${type}:${sub}` : type;
}
