/** The bounded contexts of the platform; each is one NestJS app under apps/<name>. */
export const BOUNDED_CONTEXTS = [
  'gateway',
  'scrape-engine',
  'batch-orchestrator',
  'result-store',
  'webhook-sender',
  'billing-meter',
  'proxy-approvals',
  'viability-analyzer',
  'site-discovery',
] as const;
export type BoundedContext = (typeof BOUNDED_CONTEXTS)[number];

/** Contexts that serve messages (the gateway only calls others, it serves HTTP). */
export const MESSAGE_CONTEXTS = BOUNDED_CONTEXTS.filter((c) => c !== 'gateway') as Exclude<BoundedContext, 'gateway'>[];
export type MessageContext = (typeof MESSAGE_CONTEXTS)[number];
