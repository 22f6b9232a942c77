import { Module } from '@nestjs/common';
import { AccountController } from './account/account.controller';
import { AgentEndpointController } from './agent-tools/agent-endpoint.controller';
import { AccountTools } from './agent-tools/account-tools/account-tools';
import { AgentToolbox } from './agent-tools/agent-toolbox';
import { PageTools } from './agent-tools/page-tools/page-tools';
import { SiteTools } from './agent-tools/site-tools/site-tools';
import { MonitorTools } from './agent-tools/monitor-tools/monitor-tools';
import { AgentToolServer } from './agent-tools/agent-tool-server';
import { CreateClientController } from './admin-clients/create-client/create-client.controller';
import { RotateTokenController } from './admin-clients/rotate-token/rotate-token.controller';
import { RequestAdmission } from './admission/request-admission';
import { RequestRateLimiter } from './admission/request-rate-limiter';
import { CollectionsController } from './collections/collections.controller';
import { IdempotencyKeys } from './idempotency/idempotency-keys';
import { RunsController } from './collections/runs.controller';
import { WebhooksController } from './webhooks/webhooks.controller';
import { JobsController } from './jobs/jobs.controller';
import { BatchesController } from './projects/batches.controller';
import { ProjectsController } from './projects/projects.controller';
import { ProxiesController } from './proxies/proxies.controller';
import { UsageController } from './usage/usage.controller';
import { ViabilityTestsController } from './viability/viability-tests.controller';
import { SiteMapController } from './site-discovery/site-map.controller';
import { LlmsTxtController } from './llms-txt/llms-txt.controller';
import { CrawlsController } from './site-discovery/crawls.controller';
import { MonitorsController } from './monitors/monitors.controller';
import { MonitorCalls } from './monitors/monitor-calls';
import { CrawlWebhooksController } from './site-discovery/crawl-webhooks.controller';
import { SiteDiscoveryCalls } from './site-discovery/site-discovery.calls';
import { ClientBootstrap } from './clients/client-bootstrap';
import { ClientDirectory } from './clients/client-directory';
import { ChargedExecution } from './credits/charged-execution';
import { CreditGate } from './credits/credit-gate';
import { CreditLeases } from './credits/credit-leases';
import { CreditSummaryController } from './credits/credit-summary.controller';
import { QuotaCache } from './credits/quota-cache';
import { QuotaEventsController } from './credits/quota-events.controller';
import { HealthController } from './health/health.controller';
import { OperationsController } from './operations/operations.controller';
import { PlatformHealth } from './health/platform-health';
import { OPENAPI_DOCUMENT, OpenApiController } from './openapi/openapi.controller';
import { PlansController } from './plans/plans.controller';
import { DocumentsController } from './documents/documents.controller';
import { UrlReadController } from './url-reads/url-read.controller';
import { SyncScrapeController } from './sync-scrape/sync-scrape.controller';
import { EngineWatch } from './sync-scrape/engine-watch';
import { InFlightEventsController } from './sync-scrape/in-flight-events.controller';
import { SyncScrapeHandler } from './sync-scrape/sync-scrape.handler';
import { PageCacheClient } from '@lib/page-cache';
import { ClientStore } from './persistence/clients.store';
import { IdempotencyKeyStore } from './persistence/idempotency-keys.store';

/** gateway: public REST under /v1 and the agent endpoint at /mcp — auth, rate limits, quotas, errors — in front of the contexts. */
@Module({
  controllers: [
    QuotaEventsController,
    InFlightEventsController,
    HealthController,
    OperationsController,
    PlansController,
    CreateClientController,
    RotateTokenController,
    OpenApiController,
    SyncScrapeController,
    UrlReadController,
    DocumentsController,
    CollectionsController,
    RunsController,
    ProjectsController,
    BatchesController,
    JobsController,
    CreditSummaryController,
    AccountController,
    WebhooksController,
    ProxiesController,
    UsageController,
    ViabilityTestsController,
    SiteMapController,
    CrawlsController,
    LlmsTxtController,
    MonitorsController,
    CrawlWebhooksController,
    AgentEndpointController,
  ],
  providers: [
    SiteDiscoveryCalls,
    ClientStore,
    IdempotencyKeyStore,
    ClientDirectory,
    ClientBootstrap,
    RequestRateLimiter,
    RequestAdmission,
    CreditLeases,
    CreditGate,
    ChargedExecution,
    { provide: QuotaCache, useFactory: () => new QuotaCache() },
    PlatformHealth,
    SyncScrapeHandler,
    PageCacheClient,
    MonitorCalls,
    EngineWatch,
    IdempotencyKeys,
    AgentToolbox,
    PageTools,
    SiteTools,
    MonitorTools,
    AccountTools,
    AgentToolServer,
    { provide: OPENAPI_DOCUMENT, useValue: { current: null } },
  ],
})
export class GatewayModule {}
