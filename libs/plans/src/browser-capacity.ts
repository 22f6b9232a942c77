/**
 * What a deployment's browser workers can run, beside what a plan allows: a plan's
 * `browser_concurrency` is how many browser pages one client may have in flight on a worker
 * (rendering or waiting their turn); how many of those render at once is bounded by the worker's
 * page slots, one of which no single client may take (decision 0018).
 */
export interface BrowserCapacity {
  /** Page slots of one scrape-engine worker (BROWSER_CONCURRENCY). */
  pagesPerWorker: number;
  /** Longest a sync browser scrape within its plan waits for its turn (BROWSER_QUEUE_TIMEOUT_MS). */
  queueWaitMs: number;
}

/** Pages one client renders at once on one worker: its plan's figure, never every slot of it. */
export function renderingShare(planPages: number, pagesPerWorker: number): number {
  return Math.max(1, Math.min(planPages, pagesPerWorker - 1));
}
