/**
 * Per-host politeness for one map or crawl: at most `concurrency` requests to a host at once, and
 * when robots.txt names a Crawl-delay, request starts on that host at least that far apart (the
 * delay then also means one at a time, as its authors intend). Waiting is bounded by the caller's
 * deadline: a turn that cannot start before it is refused, never queued past it.
 */
export class HostPoliteness {
  private readonly hosts = new Map<string, HostTurns>();

  constructor(private readonly concurrency: number) {}

  setCrawlDelay(host: string, seconds: number | null): void {
    this.turnsOf(host).delayMs = seconds ? seconds * 1000 : 0;
  }

  /** Runs `work` in a turn on `host`; resolves to null (work not run) when the turn would start after `deadline`. */
  async inTurn<T>(host: string, deadline: number, work: () => Promise<T>): Promise<T | null> {
    const turns = this.turnsOf(host);
    const granted = await turns.acquire(this.concurrency, deadline);
    if (!granted) return null;
    try {
      return await work();
    } finally {
      turns.release();
    }
  }

  private turnsOf(host: string): HostTurns {
    let turns = this.hosts.get(host);
    if (!turns) {
      turns = new HostTurns();
      this.hosts.set(host, turns);
    }
    return turns;
  }
}

class HostTurns {
  delayMs = 0;
  private active = 0;
  private nextStartAt = 0;
  private readonly waiting: Array<() => void> = [];

  async acquire(concurrency: number, deadline: number): Promise<boolean> {
    const limit = this.delayMs > 0 ? 1 : concurrency;
    while (this.active >= limit) {
      if (Date.now() >= deadline) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(
          () => {
            const at = this.waiting.indexOf(wake);
            if (at >= 0) this.waiting.splice(at, 1);
            resolve();
          },
          Math.max(1, deadline - Date.now()),
        );
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        this.waiting.push(wake);
      });
    }
    const wait = this.nextStartAt - Date.now();
    if (wait > 0) {
      if (Date.now() + wait > deadline) return false;
      this.active += 1;
      await new Promise((resolve) => setTimeout(resolve, wait));
    } else this.active += 1;
    this.nextStartAt = Math.max(Date.now(), this.nextStartAt) + this.delayMs;
    return true;
  }

  release(): void {
    this.active -= 1;
    this.waiting.shift()?.();
  }
}
