/**
 * The kinds of run on the job engine (decision 0014): a collection's run (spec 2.13), a
 * project's batch, and a crawl's pages (issue 39). The one list every type, schema enum and table of per-kind behaviour is built
 * from, so a new kind is a row here and a row in each `Record<RunKind, …>` the compiler then asks
 * for, not a sweep for string unions.
 */
export const RUN_KINDS = ['batch', 'collection', 'crawl'] as const;
export type RunKind = (typeof RUN_KINDS)[number];
