/** A page's newest version as a tick found it. */
export interface PageHead {
  id: string;
  hash: string;
  firstSeenAt: Date;
  /** The job that wrote it: a page this tick already wrote is never told "same" from here. */
  jobId: string;
}

/** Ticks whose heads a replica keeps, and pages over all of them: a tick's are read once, at its first page. */
const TICKS_KEPT = 64;
const PAGES_KEPT = 200_000;

/**
 * The newest version of every page of a monitor, read in one statement when a tick's first page
 * is recorded and kept for the tick (decision 0038), so that a page seen again unchanged is told
 * "same" without a statement of its own. It holds because a monitor's ticks never overlap
 * (MonitorStore.lockDue) and each page of a tick is one job: during a tick only that page's job
 * writes its versions. What that job wrote itself is not answered from here (it may be the job's
 * repeat asking again), and only a first attempt is: a later attempt may follow one that wrote a
 * version after these heads were read.
 */
export class TickHeads {
  private readonly ticks = new Map<string, { heads: Promise<Map<string, PageHead>>; pages: number }>();
  private pagesHeld = 0;

  constructor(private readonly load: (monitorId: string) => Promise<Array<PageHead & { url: string }>>) {}

  /**
   * What the tick knows of the page: its head (null: the monitor had no version of it), or
   * undefined when the tick may not answer for it.
   */
  async headOf(page: {
    runId: string;
    monitorId: string;
    url: string;
    jobId: string;
    attempt: number;
  }): Promise<{ head: PageHead | null } | undefined> {
    if (page.attempt !== 1) return undefined;
    const head = (await this.headsOf(page.runId, page.monitorId)).get(page.url);
    if (head?.jobId === page.jobId) return undefined;
    return { head: head ?? null };
  }

  /** The tick is over (its report asked for its changes): its heads are not needed any more. */
  forget(runId: string): void {
    const tick = this.ticks.get(runId);
    if (!tick) return;
    this.ticks.delete(runId);
    this.pagesHeld -= tick.pages;
  }

  /** Pages whose heads are held, over every tick kept (bounded by PAGES_KEPT, TICKS_KEPT ticks). */
  held(): { ticks: number; pages: number } {
    return { ticks: this.ticks.size, pages: this.pagesHeld };
  }

  private headsOf(runId: string, monitorId: string): Promise<Map<string, PageHead>> {
    const kept = this.ticks.get(runId);
    if (kept) return kept.heads;
    const tick = { heads: this.load(monitorId).then((rows) => new Map(rows.map(({ url, ...head }) => [url, head]))), pages: 0 };
    this.ticks.set(runId, tick);
    tick.heads.then(
      (heads) => {
        if (this.ticks.get(runId) !== tick) return;
        tick.pages = heads.size;
        this.pagesHeld += heads.size;
        this.keepWithinBounds(runId);
      },
      // A failed read is not kept: the next page of the tick reads again.
      () => this.forget(runId),
    );
    this.keepWithinBounds(runId);
    return tick.heads;
  }

  /** Oldest ticks first, never `current`: an evicted tick's next page reads its heads again. */
  private keepWithinBounds(current: string): void {
    for (const runId of this.ticks.keys()) {
      if (this.ticks.size <= TICKS_KEPT && this.pagesHeld <= PAGES_KEPT) return;
      if (runId !== current) this.forget(runId);
    }
  }
}
