import { performance } from 'node:perf_hooks';

/** The phases of a request as the gateway sees them, in order (issue 41): each ends where the next begins. */
export const REQUEST_PHASES = ['admission', 'validation', 'hold', 'bus', 'engine', 'charge', 'respond'] as const;
export type RequestPhase = (typeof REQUEST_PHASES)[number];

/**
 * Where a request's time went, phase by phase, written as a `Server-Timing` header (the W3C
 * format: `admission;dur=0.41, …`), so a client — and `npm run bench` — can attribute the wall
 * time it measured without a profiler. Marks are cumulative: `mark(p)` closes phase p at now,
 * opened where the previous mark closed; `split` divides a closed phase in two (the engine's own
 * time reported inside the bus round trip).
 */
export class PhaseTimings {
  private last: number;
  private readonly phases = new Map<RequestPhase, number>();

  constructor(private readonly startedAt = performance.now()) {
    this.last = startedAt;
  }

  mark(phase: RequestPhase, now = performance.now()): void {
    this.phases.set(phase, (this.phases.get(phase) ?? 0) + (now - this.last));
    this.last = now;
  }

  /** Moves `ms` (bounded by what `from` holds) from phase `from` to phase `to`. */
  split(from: RequestPhase, to: RequestPhase, ms: number): void {
    const held = this.phases.get(from) ?? 0;
    const moved = Math.max(0, Math.min(held, ms));
    this.phases.set(from, held - moved);
    this.phases.set(to, (this.phases.get(to) ?? 0) + moved);
  }

  /** The header value, closing `respond` at now; `total` is the time since the request arrived. */
  header(): string {
    const now = performance.now();
    this.mark('respond', now);
    const parts = REQUEST_PHASES.filter((p) => this.phases.has(p)).map((p) => `${p};dur=${this.phases.get(p)!.toFixed(2)}`);
    parts.push(`total;dur=${(now - this.startedAt).toFixed(2)}`);
    return parts.join(', ');
  }
}
