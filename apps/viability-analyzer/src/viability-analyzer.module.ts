import { createHealthController } from '@lib/runtime';
import { targetGuardProvider } from '@lib/target-guard';
import { Module } from '@nestjs/common';
import { ViabilityWorker } from './analysis-worker/viability-worker';
import { ChargedEngineProber } from './probing/charged-engine-prober';
import { UrlAnalysis } from './url-analysis/url-analysis';
import { UrlDiscoveryController } from './url-discovery/url-discovery.controller';
import { ViabilityRunsController } from './viability-runs/viability-runs.controller';
import { ViabilityRunStore } from './persistence/viability-runs.store';

/**
 * viability-analyzer: viability runs (spec 2.15, 3.4, 4.6). Runs and their URLs live in its own
 * tables, which are also the work queue; the worker analyses each URL (url-analysis/: protection
 * evidence from @lib/page-evidence, JavaScript need, API discovery, per-mode tests, the
 * recommendation) by probing it through scrape-engine, each probe charged like a sync scrape. The
 * agent endpoint's `discover` asks for one URL's analysis synchronously (url-discovery/).
 */
@Module({
  controllers: [createHealthController('viability-analyzer'), ViabilityRunsController, UrlDiscoveryController],
  providers: [targetGuardProvider, ViabilityRunStore, UrlAnalysis, ChargedEngineProber, ViabilityWorker],
})
export class ViabilityAnalyzerModule {}
