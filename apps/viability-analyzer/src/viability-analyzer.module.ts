import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';

/**
 * The viability-analyzer bounded context. It answers health queries; the analysis of one URL is being
 * built in url-analysis/ (protection evidence from @lib/page-evidence, JavaScript need, API discovery,
 * per-mode tests, the recommendation), and the runs, their storage and the HTTP endpoints follow (issue 14).
 */
@Module({
  controllers: [createHealthController('viability-analyzer')],
})
export class ViabilityAnalyzerModule {}
