/**
 * The kinds of run on the job engine (decision 0014): a collection's run (spec 2.13), a
 * project's batch, a crawl's pages (issue 39) and a monitor's tick (issue 63). The one list every type, schema enum and table of per-kind behaviour is built
 * from, so a new kind is a row here and a row in each `Record<RunKind, …>` the compiler then asks
 * for, not a sweep for string unions.
 */
export const RUN_KINDS = ['batch', 'collection', 'crawl', 'monitor'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/**
 * Every run's lifecycle, whatever its kind (decision 0014's table, RUN_TRANSITIONS in
 * batch-orchestrator): a collection's run and a crawl's start `running`, a project's batch `open`.
 */
export const RUN_STATES = ['open', 'running', 'paused', 'cancelling', 'completed', 'cancelled'] as const;
export type RunState = (typeof RUN_STATES)[number];
export const RUN_ACTIONS = ['run', 'pause', 'resume', 'cancel'] as const;
export type RunAction = (typeof RUN_ACTIONS)[number];

/**
 * The event of a run's completion webhook, per kind (spec 6's `run.completed`; decision 0014's
 * `batch.completed`; issue 39's `crawl.completed`): batch-orchestrator writes it, webhook-sender
 * finds a run's own webhook by it.
 */
export const RUN_COMPLETION_EVENTS = {
  collection: 'run.completed',
  batch: 'batch.completed',
  crawl: 'crawl.completed',
  // Sent by the monitor's tick reporter, with the tick's changed pages, and only when one changed (or notify=always).
  monitor: 'monitor.changed',
} as const satisfies Record<RunKind, string>;
