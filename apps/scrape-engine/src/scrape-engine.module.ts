import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';

/** The scrape-engine bounded context. Today it answers health queries; its use cases arrive with later issues. */
@Module({
  controllers: [createHealthController('scrape-engine')],
})
export class ScrapeEngineModule {}
