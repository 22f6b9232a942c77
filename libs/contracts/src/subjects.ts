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
    'site-discovery': 'site-discovery.health.query.v1',
  } satisfies Record<MessageContext, string>,
  scrape: {
    /** Run one scrape; the reply's result may be parked in the transfer store (PackedPayload). */
    execute: 'scrape-engine.scrape.execute.command.v1',
    /** Download one file (spec 2.9); the content may be parked in the transfer store. */
    download: 'scrape-engine.download.execute.command.v1',
    /** Read one uploaded document (POST /v1/documents/convert); the file travels parked when large. */
    convertDocument: 'scrape-engine.document.convert.command.v1',
    /**
     * Every second, each scrape-engine replica names the sync requests it is working on (fan-out
     * to every gateway): a request that stops being named has lost its engine.
     */
    inFlight: 'scrape-engine.scrape.in-flight.event.v1',
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
    /**
     * Credit leases (gateway → billing-meter): open, grow or renew a lease; charge against one
     * (group-committed). A lease is given back with creditsRelease. The gateway's sync requests
     * hold and release in memory, against its lease.
     */
    creditsLease: 'billing-meter.credits.lease.command.v1',
    creditsLeaseCharge: 'billing-meter.credits.lease-charge.command.v1',
    /** Fact: a client's used credits changed (after every reserve, commit, release). */
    quotaChanged: 'billing-meter.quota.changed.event.v1',
    /** Usage reports read from the ledger: monthly billing, a client's metrics, platform metrics (admin). */
    billing: 'billing-meter.billing.query.v1',
    clientMetrics: 'billing-meter.client-metrics.query.v1',
    platformMetrics: 'billing-meter.platform-metrics.query.v1',
    /** The month's credits: used (ledger), held, by kind and by project. */
    creditSummary: 'billing-meter.credit-summary.query.v1',
  },
  collections: {
    create: 'batch-orchestrator.collection.create.command.v1',
    update: 'batch-orchestrator.collection.update.command.v1',
    delete: 'batch-orchestrator.collection.delete.command.v1',
    get: 'batch-orchestrator.collection.get.query.v1',
    list: 'batch-orchestrator.collection.list.query.v1',
  },
  runs: {
    start: 'batch-orchestrator.run.start.command.v1',
    get: 'batch-orchestrator.run.get.query.v1',
    list: 'batch-orchestrator.run.list.query.v1',
    /** Cancel a run: its unstarted jobs end `cancelled`, uncharged; those in flight finish. */
    cancel: 'batch-orchestrator.run.cancel.command.v1',
  },
  projects: {
    create: 'batch-orchestrator.project.create.command.v1',
    /** pause | resume | close (decision 0014's table). */
    transition: 'batch-orchestrator.project.transition.command.v1',
    list: 'batch-orchestrator.project.list.query.v1',
    get: 'batch-orchestrator.project.get.query.v1',
    summary: 'batch-orchestrator.project.summary.query.v1',
  },
  batches: {
    create: 'batch-orchestrator.batch.create.command.v1',
    append: 'batch-orchestrator.batch.append-jobs.command.v1',
    /** run | pause | resume | cancel (decision 0014's table). */
    transition: 'batch-orchestrator.batch.transition.command.v1',
    get: 'batch-orchestrator.batch.get.query.v1',
  },
  jobs: {
    /** A worker takes a dispatched job: the request and a lease, or `stale` (fenced off). */
    claim: 'batch-orchestrator.job.claim.command.v1',
    /** A worker still holds the job: extends the lease. */
    heartbeat: 'batch-orchestrator.job.heartbeat.command.v1',
    /**
     * A job worker is alive and holds jobs (scrape-engine → every batch-orchestrator, fan-out, each
     * second): a worker that falls silent has died, and its jobs go back to the queue at once
     * rather than when their leases run out.
     */
    workerAlive: 'scrape-engine.job-worker.alive.event.v1',
    /** A worker's outcome; the job completes in one transaction, then the queue message is acked. */
    complete: 'batch-orchestrator.job.complete.command.v1',
    /** One page of a run's jobs (result-store reads what batch-orchestrator wrote). */
    list: 'result-store.jobs.list.query.v1',
    result: 'result-store.job-result.get.query.v1',
    sweepRetention: 'result-store.retention.sweep.command.v1',
    /** A page of the client's jobs across batches and runs (/v1/jobs), and one job's stored response. */
    listForClient: 'result-store.client-jobs.list.query.v1',
    data: 'result-store.job-data.get.query.v1',
  },
  /** Monitors (issue 63, decision 0038): batch-orchestrator keeps them and opens their ticks as runs of kind monitor. */
  monitors: {
    create: 'batch-orchestrator.monitor.create.command.v1',
    get: 'batch-orchestrator.monitor.get.query.v1',
    list: 'batch-orchestrator.monitor.list.query.v1',
    /** pause, resume, delete, or tick now. */
    transition: 'batch-orchestrator.monitor.transition.command.v1',
    ticks: 'batch-orchestrator.monitor.ticks.query.v1',
  },
  /** A monitor's page versions, kept and compared by result-store. */
  pageVersions: {
    /** A tick's page: compared with the version before, kept when it changed; keyed by job id. */
    record: 'result-store.page-version.record.command.v1',
    /** A monitor's pages that changed, newest first. */
    changes: 'result-store.page-changes.list.query.v1',
    /** A tick's changed pages (the tick reporter's webhook). */
    changesOfTick: 'result-store.page-changes.of-tick.query.v1',
    /** A complete crawl-scope tick's pages it did not find, removed (idempotent: a page removed once is not again). */
    recordUnseen: 'result-store.page-version.record-unseen.command.v1',
  },
  /** The page cache (decision 0037): result-store keeps the last result of each client's request. */
  pageCache: {
    /** A stored result no older than the request's max_age, or what a revalidation needs. */
    lookup: 'result-store.page-cache.lookup.query.v1',
    /** Keep a result under its key (an upsert: its repeat leaves the same entry). */
    store: 'result-store.page-cache.store.command.v1',
    /** The origin answered 304: the entry is valid as of now; replies with it. */
    confirm: 'result-store.page-cache.confirm.command.v1',
  },
  proxies: {
    /** ISO 3166-1 alpha-2 codes a client may ask for. */
    countries: 'proxy-approvals.countries.query.v1',
    request: 'proxy-approvals.country.request.command.v1',
    status: 'proxy-approvals.status.query.v1',
    /** Whether a client may use a country's pool now (asked on every scrape that names a country). */
    check: 'proxy-approvals.approval.check.query.v1',
    list: 'proxy-approvals.requests.list.query.v1',
    decide: 'proxy-approvals.request.decide.command.v1',
  },
  viability: {
    create: 'viability-analyzer.run.create.command.v1',
    get: 'viability-analyzer.run.get.query.v1',
    list: 'viability-analyzer.run.list.query.v1',
    /** Analyse one URL synchronously (the agent endpoint's `discover`): the verdict, no run stored. */
    analyse: 'viability-analyzer.url.analyse.command.v1',
  },
  discovery: {
    /** List a site's URLs from robots.txt, sitemaps and links (POST /v1/map); bounded by the call's limits. */
    map: 'site-discovery.site.map.command.v1',
    /** Start a crawl (POST /v1/crawl): robots, seeds, the crawl's run opened on the job engine. */
    crawlCreate: 'site-discovery.crawl.create.command.v1',
    crawlGet: 'site-discovery.crawl.get.query.v1',
    /** pause | resume | cancel: the run's lifecycle (decision 0014's table), mirrored by the crawl. */
    crawlTransition: 'site-discovery.crawl.transition.command.v1',
    /** An llms.txt made from a crawl's pages (GET /v1/llms-txt/{crawl_id}); packed: a thousand links run past a message. */
    llmsTxt: 'site-discovery.crawl.llms-txt.query.v1',
  },
  /** A crawl's run on the job engine (site-discovery → batch-orchestrator); site-discovery decides its pages and when it ends. */
  crawlRuns: {
    open: 'batch-orchestrator.crawl-run.open.command.v1',
    append: 'batch-orchestrator.crawl-run.append-pages.command.v1',
    outcomes: 'batch-orchestrator.crawl-run.page-outcomes.query.v1',
    /** Complete the run when every page job has ended (the only way a running crawl's run completes). */
    seal: 'batch-orchestrator.crawl-run.seal.command.v1',
    transition: 'batch-orchestrator.crawl-run.transition.command.v1',
    get: 'batch-orchestrator.crawl-run.get.query.v1',
  },
  webhooks: {
    secret: 'webhook-sender.secret.get.query.v1',
    rotateSecret: 'webhook-sender.secret.rotate.command.v1',
    /**
     * Every run's webhooks, whatever its kind (decision 0036): a run's own (its completion), one
     * delivery by id, and the cursor listing of all of them (a crawl's `crawl.page` rows among them).
     */
    runDeliveries: {
      get: 'webhook-sender.run-deliveries.get.query.v1',
      redeliver: 'webhook-sender.run-deliveries.redeliver.command.v1',
      list: 'webhook-sender.run-deliveries.list.query.v1',
    },
    /**
     * The per-kind subjects of the release before, still answered by webhook-sender so a gateway
     * of that release keeps working during a rolling upgrade; removed in the next release.
     */
    formerDeliveries: {
      collectionRun: 'webhook-sender.deliveries.list.query.v1',
      collectionRunRedeliver: 'webhook-sender.deliveries.redeliver.command.v1',
      batch: 'webhook-sender.batch-deliveries.list.query.v1',
      batchRedeliver: 'webhook-sender.batch-deliveries.redeliver.command.v1',
      crawlList: 'webhook-sender.crawl-deliveries.list.query.v1',
      crawlDelivery: 'webhook-sender.crawl-deliveries.get.query.v1',
      crawlRedeliver: 'webhook-sender.crawl-deliveries.redeliver.command.v1',
    },
  },
} as const;

/**
 * JetStream (distributed runtime) carries job dispatch, so a message survives a worker's death and
 * is redelivered until acked. Not a request/reply subject: see libs/messaging/src/job-queue.
 */
export const JOB_QUEUE = {
  // Before decision 0036: stream BATCH_JOBS, subject batch.jobs.dispatch.v1. Nothing keeps them: a
  // dispatch an old orchestrator published there and no old worker started is published again
  // here by the new orchestrators' dispatch relay 2 s after it was made (decision 0034).
  stream: 'JOB_DISPATCH',
  subject: 'batch-orchestrator.job.dispatch.queue.v1',
  consumer: 'scrape-engine-job-workers',
} as const;

type ValuesOf<T> = T extends string ? T : { [K in keyof T]: ValuesOf<T[K]> }[keyof T];
export type Subject = ValuesOf<typeof SUBJECTS>;
