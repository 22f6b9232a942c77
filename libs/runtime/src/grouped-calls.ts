/**
 * Calls made one item at a time but cheaper done many at once (one statement for many rows): the
 * first call runs at once on its own; calls that arrive while a group runs wait for it and then
 * run together as the next group, at most `maxGroup` per group. Nobody waits for a timer, so a
 * lone call costs what it did; under load each group carries what arrived during the last one.
 * A group that fails fails each of its calls, and the next group still runs.
 */
export class GroupedCalls<I, O> {
  private readonly waiting: Array<{ item: I; resolve: (out: O) => void; reject: (error: unknown) => void }> = [];
  private running: Promise<void> | null = null;

  constructor(
    private readonly runGroup: (items: I[]) => Promise<O[]>,
    private readonly maxGroup = 500,
    /** How long a group waits for company before it runs, when none is running (0: it runs at once). */
    private readonly lingerMs = 0,
  ) {}

  call(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.running ??= this.drain();
    });
  }

  /** Resolves once every call made so far has been answered (for a shutdown that must not lose them). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      if (this.lingerMs > 0) await new Promise((resolve) => setTimeout(resolve, this.lingerMs));
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0, this.maxGroup);
        try {
          const outs = await this.runGroup(group.map((g) => g.item));
          if (outs.length !== group.length) throw new Error(`a group of ${group.length} calls was answered with ${outs.length} results`);
          group.forEach((g, i) => g.resolve(outs[i]));
        } catch (error) {
          for (const g of group) g.reject(error);
        }
      }
    } finally {
      this.running = null;
    }
  }
}
