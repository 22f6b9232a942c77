import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { createHealthController } from '@lib/runtime';
import { TargetAllowlist, TargetGuard } from '@lib/target-guard';
import { Module } from '@nestjs/common';
import { ContentValidator } from './content-validation/content-validator';
import { DownloadExecutor } from './download/download.executor';
import { SelectorExtractor } from './extraction/selector-extractor';
import { MarkdownConverter } from './formats/markdown-converter';
import { GuidanceAdvisor } from './guidance/guidance-advisor';
import { ProxyRotation } from './proxy-rotation/proxy-rotation';
import { SimpleFetcher } from './simple-fetch/simple-fetcher';
import { ScrapeController } from './sync-scrape/scrape.controller';
import { SimpleScrapeExecutor } from './sync-scrape/simple-scrape.executor';

/** scrape-engine: fetches targets (simple mode today; browser mode arrives with issue 4). */
@Module({
  controllers: [createHealthController('scrape-engine'), ScrapeController],
  providers: [
    { provide: TargetGuard, inject: [PLATFORM_CONFIG], useFactory: (config: PlatformConfig) => new TargetGuard(new TargetAllowlist(config.targetAllowlist)) },
    { provide: SimpleFetcher, inject: [TargetGuard], useFactory: (guard: TargetGuard) => new SimpleFetcher(guard) },
    ProxyRotation,
    ContentValidator,
    MarkdownConverter,
    SelectorExtractor,
    GuidanceAdvisor,
    SimpleScrapeExecutor,
    DownloadExecutor,
  ],
})
export class ScrapeEngineModule {}
