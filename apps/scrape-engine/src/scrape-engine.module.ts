import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { OpsEventPublisher } from '@lib/messaging';
import { createHealthController } from '@lib/runtime';
import { TargetGuard, targetGuardProvider } from '@lib/target-guard';
import { Inject, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { JobWorker } from './job-worker/job-worker';
import { PageComparison } from './page-changes/page-comparison';
import { JobPageCache } from './job-worker/job-page-cache';
import { PageCacheClient } from '@lib/page-cache';
import { BrowserLauncher } from './browser/browser-launcher';
import { BrowserPoolGauges, BrowserPoolTelemetry } from './browser/browser-pool-telemetry';
import { BrowserPool } from './browser/browser-pool';
import { BrowserScrapeExecutor } from './browser/browser-scrape.executor';
import { ContextReserve } from './browser/context-reserve';
import { locateChromium } from './browser/chromium-locator';
import { ContentValidator } from './content-validation/content-validator';
import { DownloadExecutor } from './download/download.executor';
import { SelectorExtractor } from './extraction/selector-extractor';
import { MainContentReader } from './formats/main-content-reader';
import { MarkdownConverter } from './formats/markdown-converter';
import { PageFormatter } from './formats/page-formatter';
import { GuidanceAdvisor } from './guidance/guidance-advisor';
import { ProxyRotation } from './proxy-rotation/proxy-rotation';
import { SimpleFetcher } from '@lib/http-fetch';
import { InFlightScrapes } from './sync-scrape/in-flight-scrapes';
import { ScrapeController } from './sync-scrape/scrape.controller';
import { ScrapeExecution } from './sync-scrape/scrape-execution';
import { PageRevalidation } from './page-revalidation/page-revalidation';
import { SimpleScrapeExecutor } from './sync-scrape/simple-scrape.executor';
import { DocumentThreads } from './documents/document-threads';
import { DocumentConversion } from './document-conversion/document-conversion';
import { DocumentConversionController } from './document-conversion/document-conversion.controller';
import { SimpleScrapeThreads } from './simple-threads/simple-scrape-threads';

/**
 * scrape-engine: fetches targets, in simple mode (got-scraping) or browser mode (the Chromium
 * pool), for sync requests (request/reply) and for batch jobs (taken from the job queue).
 */
@Module({
  controllers: [createHealthController('scrape-engine'), ScrapeController, DocumentConversionController],
  providers: [
    targetGuardProvider,
    { provide: SimpleFetcher, inject: [TargetGuard], useFactory: (guard: TargetGuard) => new SimpleFetcher(guard) },
    ProxyRotation,
    ContentValidator,
    { provide: MarkdownConverter, useFactory: async () => new MarkdownConverter(await MainContentReader.load()) },
    SelectorExtractor,
    PageFormatter,
    GuidanceAdvisor,
    {
      provide: DocumentThreads,
      inject: [PLATFORM_CONFIG],
      useFactory: (config: PlatformConfig) => new DocumentThreads(config.memoryReclaimIdleMs || 30_000),
    },
    SimpleScrapeExecutor,
    DocumentConversion,
    {
      provide: SimpleScrapeThreads,
      inject: [SimpleScrapeExecutor, PLATFORM_CONFIG],
      useFactory: (local: SimpleScrapeExecutor, config: PlatformConfig) => new SimpleScrapeThreads(local, config),
    },
    DownloadExecutor,
    {
      provide: BrowserPool,
      inject: [PLATFORM_CONFIG, OpsEventPublisher],
      useFactory: (config: PlatformConfig, ops: OpsEventPublisher) =>
        new BrowserPool(
          new BrowserLauncher(locateChromium(config)),
          {
            concurrency: config.browserConcurrency,
            queueTimeoutMs: config.browserQueueTimeoutMs,
            recycleAfter: config.browserRecycleAfter,
            idleCloseMs: config.browserIdleCloseMs,
          },
          new BrowserPoolTelemetry(ops),
        ),
    },
    BrowserPoolGauges,
    // Spare contexts only for heavy: a light (headless shell) context costs a few ms.
    {
      provide: ContextReserve,
      inject: [TargetGuard],
      useFactory: (guard: TargetGuard) => new ContextReserve(guard, new Set(['heavy'] as const)),
    },
    {
      provide: BrowserScrapeExecutor,
      inject: [
        BrowserPool,
        ContextReserve,
        TargetGuard,
        ProxyRotation,
        ContentValidator,
        PageFormatter,
        SelectorExtractor,
        GuidanceAdvisor,
        PLATFORM_CONFIG,
      ],
      useFactory: (
        pool: BrowserPool,
        reserve: ContextReserve,
        guard: TargetGuard,
        proxies: ProxyRotation,
        validator: ContentValidator,
        formatter: PageFormatter,
        extractor: SelectorExtractor,
        advisor: GuidanceAdvisor,
        config: PlatformConfig,
      ) =>
        new BrowserScrapeExecutor(pool, reserve, guard, proxies, validator, formatter, extractor, advisor, {
          navigationMs: config.browserNavigationTimeoutMs,
          maxBytes: config.browserPageMaxBytes,
          maxHtmlChars: config.browserPageMaxHtmlChars,
        }),
    },
    ScrapeExecution,
    PageRevalidation,
    InFlightScrapes,
    JobWorker,
    PageComparison,
    JobPageCache,
    PageCacheClient,
  ],
})
export class ScrapeEngineModule implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    private readonly browsers: BrowserPool,
    private readonly reserve: ContextReserve,
    private readonly jobs: JobWorker,
    private readonly simpleThreads: SimpleScrapeThreads,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.start();
    // In the background: the service answers at once, the first browser request finds them warm.
    if (this.config.browserWarm) void this.browsers.warm(['light', 'heavy']);
  }

  async onModuleDestroy(): Promise<void> {
    // Jobs in hand finish (or expire into the orchestrator's sweeper) before the browsers go.
    await this.jobs.stop();
    await this.simpleThreads.close();
    await this.reserve.close();
    await this.browsers.close();
  }
}
