/** A page's newest version as a tick found it. */
export interface PageHead {
  id: string;
  hash: string;
  firstSeenAt: Date;
  /** The job that wrote it: a page this tick already wrote is never told "same" from here. */
  jobId: string;
}

/** Ticks whose heads a replica keeps: a tick's are read once, at its first page. */
const TICKS_KEPT = 64;

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
  private readonly ticks = new Map<string, Promise<Map<string, PageHead>>>();

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

  private headsOf(runId: string, monitorId: string): Promise<Map<string, PageHead>> {
    let heads = this.ticks.get(runId);
    if (!heads) {
      heads = this.load(monitorId).then((rows) => new Map(rows.map(({ url, ...head }) => [url, head])));
      // A failed read is not kept: the next page of the tick reads again.
      heads.catch(() => this.ticks.delete(runId));
      this.ticks.set(runId, heads);
      if (this.ticks.size > TICKS_KEPT) this.ticks.delete(this.ticks.keys().next().value!);
    }
    return heads;
  }
}
