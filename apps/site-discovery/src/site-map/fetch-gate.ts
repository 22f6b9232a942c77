/**
 * The fetches one site-discovery process makes at once, shared by every map in it, first come first
 * served: a map of 100,000 URLs and a map of ten take turns rather than the first taking them all.
 * A turn that would start after its map's deadline is not taken (null).
 */
export class FetchGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly capacity: number) {}

  async inTurn<T>(deadline: number, work: () => Promise<T | null>): Promise<T | null> {
    if (this.active >= this.capacity) {
      const admitted = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(
          () => {
            const at = this.waiting.indexOf(wake);
            if (at >= 0) this.waiting.splice(at, 1);
            resolve(false);
          },
          Math.max(1, deadline - Date.now()),
        );
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        this.waiting.push(wake);
      });
      // A waiter woken by release() inherits the releasing turn's slot (active is not decremented for it).
      if (!admitted) return null;
    } else this.active += 1;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
