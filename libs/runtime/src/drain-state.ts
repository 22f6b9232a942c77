/**
 * Whether this process is draining: it got SIGTERM and is about to stop. Readiness answers 503
 * from then on, so Kubernetes takes the pod out of its Service endpoints while the process still
 * serves what was routed to it; the process stops accepting work only after DRAIN_SECONDS.
 */
class DrainState {
  private since: Date | null = null;

  get draining(): boolean {
    return this.since !== null;
  }

  begin(): void {
    this.since ??= new Date();
  }
}

/** One per process: the gateway's and every context's readiness read it. */
export const drainState = new DrainState();
