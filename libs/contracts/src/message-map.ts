import type { ConvertDocumentCommand, DocumentConversionResult } from './documents/document-conversion.messages';
import type { MessageContext } from './bounded-contexts';
import type {
  ChargeLeasedCreditsCommand,
  ChargeLeasedCreditsReply,
  LeaseCreditsCommand,
  LeaseCreditsReply,
} from './billing/credit-lease.messages';
import type {
  CommitCreditsCommand,
  CommitCreditsReply,
  ReleaseCreditsCommand,
  ReleaseCreditsReply,
  ReserveCreditsCommand,
  ReserveCreditsReply,
} from './billing/credit-reservation.messages';
import type { QuotaChangedEvent, QuotaQuery, QuotaState } from './billing/quota.messages';
import type {
  BillingQuery,
  BillingReply,
  ClientMetricsQuery,
  ClientMetricsReply,
  PlatformMetricsQuery,
  PlatformMetricsReply,
} from './billing/usage.messages';
import type {
  PageCacheConfirmCommand,
  PageCacheLookupQuery,
  PageCacheLookupReply,
  PageCacheStoreCommand,
  StoredPage,
} from './scrape/page-cache.messages';
import type {
  CreateMonitorCommand,
  ListMonitorsQuery,
  MonitorChangesQuery,
  MonitorReference,
  MonitorTickReference,
  RecordUnseenPagesCommand,
  MonitorTickView,
  MonitorTransitionCommand,
  MonitorView,
  PageChangeView,
  RecordPageVersionCommand,
} from './monitors/monitor.messages';
import type { PageChange } from './monitors/page-change';
import type { HealthQuery, HealthReport } from './health/health.messages';
import type {
  DownloadResultBody,
  ExecuteDownloadCommand,
  ExecuteScrapeCommand,
  ScrapeExecutionFacts,
  ScrapeResultBody,
  ScrapesInFlightEvent,
} from './scrape/scrape-execution.messages';
import type {
  CollectionReference,
  CollectionView,
  CollectionWriteReply,
  CreateCollectionCommand,
  ListCollectionsQuery,
  ListRunsQuery,
  RunList,
  RunReference,
  RunView,
  StartRunCommand,
  UpdateCollectionCommand,
} from './batch/collection.messages';
import type {
  ClaimJobCommand,
  ClaimJobReply,
  CompleteJobCommand,
  CompleteJobReply,
  HeartbeatJobCommand,
  HeartbeatJobReply,
  JobWorkerAliveEvent,
} from './batch/job-execution.messages';
import type {
  GetJobResultQuery,
  JobListingPage,
  JobResultReply,
  ListJobsQuery,
  SweepRetentionCommand,
  SweepRetentionReply,
} from './batch/job-listing.messages';
import type {
  AppendJobsCommand,
  BatchReference,
  BatchTransitionCommand,
  BatchView,
  BatchWriteReply,
  CancelRunCommand,
  ClientJobPage,
  CreateBatchCommand,
  CreateProjectCommand,
  CreditSummary,
  CreditSummaryQuery,
  GetJobDataQuery,
  ListClientJobsQuery,
  ListProjectsQuery,
  ProjectList,
  ProjectReference,
  ProjectsSummary,
  ProjectsSummaryQuery,
  ProjectTransitionCommand,
  ProjectTransitionReply,
  ProjectView,
} from './batch/project.messages';
import type { Packed } from './packed';
import type {
  CountryReference,
  CountryRequestList,
  CountryRequestView,
  ProxyCountryName,
  DecideCountryRequestCommand,
  ListCountryRequestsQuery,
  ProxyClientReference,
  ProxyStatusReply,
  RequestCountryCommand,
  RequestCountryReply,
} from './proxy/country-proxy.messages';
import type {
  BatchDeliveriesReference,
  CrawlDeliveriesQuery,
  CrawlDeliveryReference,
  CrawlWebhookDeliveries,
  RunDeliveriesQuery,
  RunDeliveriesReference,
  RunWebhookReference,
  WebhookDeliveryLog,
  WebhookSecretQuery,
  WebhookSecretReply,
} from './webhooks/webhook.messages';
import type {
  AnalyseUrlCommand,
  CreateViabilityRunCommand,
  ViabilityResult,
  ListViabilityRunsQuery,
  ViabilityRunList,
  ViabilityRunReference,
  ViabilityRunView,
} from './viability/viability.messages';
import type { MapSiteCommand, MapSiteResult } from './discovery/site-map.messages';
import type {
  AppendCrawlPagesCommand,
  CrawlPageOutcome,
  CrawlPageOutcomesQuery,
  CrawlReference,
  CrawlRunFigures,
  CrawlRunReference,
  CrawlRunTransitionCommand,
  CrawlTransitionCommand,
  CrawlView,
  CreateCrawlCommand,
  OpenCrawlRunCommand,
} from './discovery/crawl.messages';
import type { LlmsTxtQuery, LlmsTxtView } from './discovery/llms-txt.messages';
import { type SUBJECTS } from './subjects';

export type { Packed };

/**
 * Subject → request and reply types. The typed MessageBus only accepts pairs listed here, so a
 * producer cannot drift from its consumer without the compiler noticing.
 */
export type RequestReplyMap = {
  [K in (typeof SUBJECTS.health)[MessageContext]]: { request: HealthQuery; reply: HealthReport };
} & {
  [SUBJECTS.scrape.execute]: { request: ExecuteScrapeCommand; reply: { facts: ScrapeExecutionFacts; result: Packed<ScrapeResultBody> } };
  [SUBJECTS.scrape.download]: {
    request: ExecuteDownloadCommand;
    reply: { facts: ScrapeExecutionFacts; result: Packed<DownloadResultBody> };
  };
  [SUBJECTS.scrape.convertDocument]: {
    request: ConvertDocumentCommand;
    reply: { facts: ScrapeExecutionFacts; result: Packed<DocumentConversionResult> };
  };
  [SUBJECTS.billing.quotaQuery]: { request: QuotaQuery; reply: QuotaState };
  [SUBJECTS.billing.creditsReserve]: { request: ReserveCreditsCommand; reply: ReserveCreditsReply };
  [SUBJECTS.billing.creditsCommit]: { request: CommitCreditsCommand; reply: CommitCreditsReply };
  [SUBJECTS.billing.creditsRelease]: { request: ReleaseCreditsCommand; reply: ReleaseCreditsReply };
  [SUBJECTS.billing.creditsLease]: { request: LeaseCreditsCommand; reply: LeaseCreditsReply };
  [SUBJECTS.billing.creditsLeaseCharge]: { request: ChargeLeasedCreditsCommand; reply: ChargeLeasedCreditsReply };
  [SUBJECTS.billing.billing]: { request: BillingQuery; reply: BillingReply };
  [SUBJECTS.billing.clientMetrics]: { request: ClientMetricsQuery; reply: ClientMetricsReply };
  [SUBJECTS.billing.platformMetrics]: { request: PlatformMetricsQuery; reply: PlatformMetricsReply };
  [SUBJECTS.collections.create]: { request: CreateCollectionCommand; reply: CollectionWriteReply };
  [SUBJECTS.collections.update]: { request: UpdateCollectionCommand; reply: CollectionWriteReply };
  [SUBJECTS.collections.delete]: { request: CollectionReference; reply: { deleted: boolean } };
  [SUBJECTS.collections.get]: { request: CollectionReference; reply: CollectionView };
  [SUBJECTS.collections.list]: { request: ListCollectionsQuery; reply: CollectionView[] };
  [SUBJECTS.runs.start]: { request: StartRunCommand; reply: RunView };
  [SUBJECTS.runs.get]: { request: RunReference; reply: RunView };
  [SUBJECTS.runs.list]: { request: ListRunsQuery; reply: RunList };
  [SUBJECTS.runs.cancel]: { request: CancelRunCommand; reply: RunView };
  [SUBJECTS.projects.create]: { request: CreateProjectCommand; reply: ProjectView };
  [SUBJECTS.projects.transition]: { request: ProjectTransitionCommand; reply: ProjectTransitionReply };
  [SUBJECTS.projects.list]: { request: ListProjectsQuery; reply: ProjectList };
  [SUBJECTS.projects.get]: { request: ProjectReference; reply: ProjectView };
  [SUBJECTS.projects.summary]: { request: ProjectsSummaryQuery; reply: ProjectsSummary };
  [SUBJECTS.batches.create]: { request: CreateBatchCommand; reply: BatchWriteReply };
  [SUBJECTS.batches.append]: { request: AppendJobsCommand; reply: BatchWriteReply };
  [SUBJECTS.batches.transition]: { request: BatchTransitionCommand; reply: BatchView };
  [SUBJECTS.batches.get]: { request: BatchReference; reply: BatchView };
  [SUBJECTS.jobs.listForClient]: { request: ListClientJobsQuery; reply: Packed<ClientJobPage> };
  [SUBJECTS.jobs.data]: { request: GetJobDataQuery; reply: JobResultReply };
  [SUBJECTS.billing.creditSummary]: { request: CreditSummaryQuery; reply: CreditSummary };
  [SUBJECTS.jobs.claim]: { request: ClaimJobCommand; reply: ClaimJobReply };
  [SUBJECTS.jobs.heartbeat]: { request: HeartbeatJobCommand; reply: HeartbeatJobReply };
  [SUBJECTS.jobs.complete]: { request: CompleteJobCommand; reply: CompleteJobReply };
  [SUBJECTS.jobs.list]: { request: ListJobsQuery; reply: Packed<JobListingPage> };
  [SUBJECTS.jobs.result]: { request: GetJobResultQuery; reply: JobResultReply };
  [SUBJECTS.monitors.create]: { request: CreateMonitorCommand; reply: MonitorView };
  [SUBJECTS.monitors.get]: { request: MonitorReference; reply: MonitorView };
  [SUBJECTS.monitors.list]: { request: ListMonitorsQuery; reply: { monitors: MonitorView[] } };
  [SUBJECTS.monitors.transition]: { request: MonitorTransitionCommand; reply: MonitorView | { deleted: true } };
  [SUBJECTS.monitors.ticks]: { request: MonitorReference; reply: { ticks: MonitorTickView[] } };
  [SUBJECTS.pageVersions.record]: { request: RecordPageVersionCommand; reply: { change: PageChange | null } };
  [SUBJECTS.pageVersions.changes]: { request: MonitorChangesQuery; reply: { changes: PageChangeView[] } };
  [SUBJECTS.pageVersions.changesOfTick]: { request: MonitorTickReference; reply: { changes: PageChangeView[] } };
  [SUBJECTS.pageVersions.recordUnseen]: { request: RecordUnseenPagesCommand; reply: { removed: number } };
  [SUBJECTS.pageCache.lookup]: { request: PageCacheLookupQuery; reply: PageCacheLookupReply };
  [SUBJECTS.pageCache.store]: { request: PageCacheStoreCommand; reply: { stored: boolean } };
  [SUBJECTS.pageCache.confirm]: { request: PageCacheConfirmCommand; reply: { entry: StoredPage | null } };
  [SUBJECTS.jobs.sweepRetention]: { request: SweepRetentionCommand; reply: SweepRetentionReply };
  [SUBJECTS.proxies.countries]: { request: Record<string, never>; reply: { countries: ProxyCountryName[] } };
  [SUBJECTS.proxies.request]: { request: RequestCountryCommand; reply: RequestCountryReply };
  [SUBJECTS.proxies.status]: { request: ProxyClientReference; reply: ProxyStatusReply };
  [SUBJECTS.proxies.check]: { request: CountryReference; reply: { approved: boolean } };
  [SUBJECTS.proxies.list]: { request: ListCountryRequestsQuery; reply: CountryRequestList };
  [SUBJECTS.proxies.decide]: { request: DecideCountryRequestCommand; reply: CountryRequestView };
  [SUBJECTS.viability.create]: { request: CreateViabilityRunCommand; reply: ViabilityRunView };
  [SUBJECTS.viability.get]: { request: ViabilityRunReference; reply: ViabilityRunView };
  [SUBJECTS.viability.list]: { request: ListViabilityRunsQuery; reply: ViabilityRunList };
  [SUBJECTS.viability.analyse]: { request: AnalyseUrlCommand; reply: { verdict: ViabilityResult; credits_charged: number } };
  [SUBJECTS.discovery.map]: { request: MapSiteCommand; reply: MapSiteResult };
  [SUBJECTS.discovery.crawlCreate]: { request: CreateCrawlCommand; reply: CrawlView };
  [SUBJECTS.discovery.crawlGet]: { request: CrawlReference; reply: CrawlView };
  [SUBJECTS.discovery.crawlTransition]: { request: CrawlTransitionCommand; reply: CrawlView };
  [SUBJECTS.discovery.llmsTxt]: { request: LlmsTxtQuery; reply: Packed<LlmsTxtView> };
  [SUBJECTS.crawlRuns.open]: { request: OpenCrawlRunCommand; reply: CrawlRunFigures };
  [SUBJECTS.crawlRuns.append]: { request: AppendCrawlPagesCommand; reply: { added: number; state: CrawlRunFigures['state'] } };
  [SUBJECTS.crawlRuns.outcomes]: { request: CrawlPageOutcomesQuery; reply: { finished: CrawlPageOutcome[] } };
  [SUBJECTS.crawlRuns.seal]: { request: CrawlRunReference; reply: CrawlRunFigures };
  [SUBJECTS.crawlRuns.transition]: { request: CrawlRunTransitionCommand; reply: CrawlRunFigures };
  [SUBJECTS.crawlRuns.get]: { request: CrawlRunReference; reply: CrawlRunFigures };
  [SUBJECTS.webhooks.secret]: { request: WebhookSecretQuery; reply: WebhookSecretReply };
  [SUBJECTS.webhooks.rotateSecret]: { request: WebhookSecretQuery; reply: WebhookSecretReply };
  [SUBJECTS.webhooks.runDeliveries.get]: { request: RunWebhookReference; reply: WebhookDeliveryLog };
  [SUBJECTS.webhooks.runDeliveries.redeliver]: { request: RunWebhookReference; reply: WebhookDeliveryLog };
  [SUBJECTS.webhooks.runDeliveries.list]: { request: RunDeliveriesQuery; reply: CrawlWebhookDeliveries };
  [SUBJECTS.webhooks.formerDeliveries.collectionRun]: { request: RunDeliveriesReference; reply: WebhookDeliveryLog };
  [SUBJECTS.webhooks.formerDeliveries.collectionRunRedeliver]: { request: RunDeliveriesReference; reply: WebhookDeliveryLog };
  [SUBJECTS.webhooks.formerDeliveries.batch]: { request: BatchDeliveriesReference; reply: WebhookDeliveryLog };
  [SUBJECTS.webhooks.formerDeliveries.batchRedeliver]: { request: BatchDeliveriesReference; reply: WebhookDeliveryLog };
  [SUBJECTS.webhooks.formerDeliveries.crawlList]: { request: CrawlDeliveriesQuery; reply: CrawlWebhookDeliveries };
  [SUBJECTS.webhooks.formerDeliveries.crawlDelivery]: { request: CrawlDeliveryReference; reply: WebhookDeliveryLog };
  [SUBJECTS.webhooks.formerDeliveries.crawlRedeliver]: { request: CrawlDeliveryReference; reply: WebhookDeliveryLog };
};

/** Facts published for whoever listens (fire and forget, at most once). */
export type EventMap = {
  [SUBJECTS.billing.quotaChanged]: QuotaChangedEvent;
  [SUBJECTS.scrape.inFlight]: ScrapesInFlightEvent;
  [SUBJECTS.jobs.workerAlive]: JobWorkerAliveEvent;
};

export type RequestSubject = keyof RequestReplyMap;
export type RequestOf<S extends RequestSubject> = RequestReplyMap[S]['request'];
export type ReplyOf<S extends RequestSubject> = RequestReplyMap[S]['reply'];
export type EventSubject = keyof EventMap;
