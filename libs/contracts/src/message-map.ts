import type { MessageContext } from './bounded-contexts';
import type { CommitCreditsCommand, CommitCreditsReply, ReleaseCreditsCommand, ReleaseCreditsReply, ReserveCreditsCommand, ReserveCreditsReply } from './billing/credit-reservation.messages';
import type { QuotaChangedEvent, QuotaQuery, QuotaState } from './billing/quota.messages';
import type { HealthQuery, HealthReport } from './health/health.messages';
import type { DownloadResultBody, ExecuteDownloadCommand, ExecuteScrapeCommand, ScrapeExecutionFacts, ScrapeResultBody } from './scrape/scrape-execution.messages';
import { SUBJECTS } from './subjects';

/** A value that may have been parked in the transfer store (see MessageBus.pack). */
export type Packed<T> = { inline: T } | { object: string; bytes: number };

/**
 * Subject → request and reply types. The typed MessageBus only accepts pairs listed here, so a
 * producer cannot drift from its consumer without the compiler noticing.
 */
export type RequestReplyMap = {
  [K in (typeof SUBJECTS.health)[MessageContext]]: { request: HealthQuery; reply: HealthReport };
} & {
  [SUBJECTS.scrape.execute]: { request: ExecuteScrapeCommand; reply: { facts: ScrapeExecutionFacts; result: Packed<ScrapeResultBody> } };
  [SUBJECTS.scrape.download]: { request: ExecuteDownloadCommand; reply: { facts: ScrapeExecutionFacts; result: Packed<DownloadResultBody> } };
  [SUBJECTS.billing.quotaQuery]: { request: QuotaQuery; reply: QuotaState };
  [SUBJECTS.billing.creditsReserve]: { request: ReserveCreditsCommand; reply: ReserveCreditsReply };
  [SUBJECTS.billing.creditsCommit]: { request: CommitCreditsCommand; reply: CommitCreditsReply };
  [SUBJECTS.billing.creditsRelease]: { request: ReleaseCreditsCommand; reply: ReleaseCreditsReply };
};

/** Facts published for whoever listens (fire and forget, at most once). */
export type EventMap = {
  [SUBJECTS.billing.quotaChanged]: QuotaChangedEvent;
};

export type RequestSubject = keyof RequestReplyMap;
export type RequestOf<S extends RequestSubject> = RequestReplyMap[S]['request'];
export type ReplyOf<S extends RequestSubject> = RequestReplyMap[S]['reply'];
export type EventSubject = keyof EventMap;
