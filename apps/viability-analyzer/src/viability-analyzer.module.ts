import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';

/** The viability-analyzer bounded context. Today it answers health queries; its use cases arrive with later issues. */
@Module({
  controllers: [createHealthController('viability-analyzer')],
})
export class ViabilityAnalyzerModule {}
