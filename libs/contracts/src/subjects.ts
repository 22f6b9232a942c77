import type { MessageContext } from './bounded-contexts';

/**
 * Every message subject of the platform, listed once. Names follow
 * `<context>.<entity>.<query|command|event>.v<N>`.
 *
 * A wire name is never edited once released: a changed payload gets a new `.v2` subject next to
 * the old one, and the old one is removed only after no deployed producer uses it.
 */
export const SUBJECTS = {
  health: {
    'scrape-engine': 'scrape-engine.health.query.v1',
    'batch-orchestrator': 'batch-orchestrator.health.query.v1',
    'result-store': 'result-store.health.query.v1',
    'webhook-sender': 'webhook-sender.health.query.v1',
    'billing-meter': 'billing-meter.health.query.v1',
    'proxy-approvals': 'proxy-approvals.health.query.v1',
    'viability-analyzer': 'viability-analyzer.health.query.v1',
  } satisfies Record<MessageContext, string>,
  scrape: {
    /** Run one scrape; the reply's result may be parked in the transfer store (PackedPayload). */
    execute: 'scrape-engine.scrape.execute.command.v1',
    /** Download one file (spec 2.9); the content may be parked in the transfer store. */
    download: 'scrape-engine.download.execute.command.v1',
  },
  billing: {
    /** Current month's quota state of one client (gateway → billing-meter, request/reply). */
    quotaQuery: 'billing-meter.quota.query.v1',
    /** Hold credits before billable work starts; refused when the quota cannot cover them. */
    creditsReserve: 'billing-meter.credits.reserve.command.v1',
    /** Turn a reservation into a ledger charge (idempotent on charge_key). */
    creditsCommit: 'billing-meter.credits.commit.command.v1',
    /** Drop a reservation without charging (infrastructure failure: nothing is charged). */
    creditsRelease: 'billing-meter.credits.release.command.v1',
    /** Fact: a client's used credits changed (after every reserve, commit, release). */
    quotaChanged: 'billing-meter.quota.changed.event.v1',
  },
} as const;

type ValuesOf<T> = T extends string ? T : { [K in keyof T]: ValuesOf<T[K]> }[keyof T];
export type Subject = ValuesOf<typeof SUBJECTS>;
