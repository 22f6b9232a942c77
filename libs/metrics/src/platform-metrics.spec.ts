import fc from 'fast-check';
import { boundedLabel, PlatformMetrics } from './platform-metrics';

/** Label values come from closed sets whatever the input: the series count cannot grow with traffic. */
describe('PlatformMetrics labels', () => {
  it('folds any error type or ops subject outside the documented sets into one value', async () => {
    const metrics = new PlatformMetrics();
    fc.assert(
      fc.property(fc.string(), fc.string(), (errorType, subject) => {
        metrics.countOpsEvent(`ops.${subject}`);
        metrics.scrapes.inc({ mode: 'simple', outcome: 'failed', error_type: metrics.errorTypeLabel(errorType) });
      }),
      { numRuns: 500 },
    );
    metrics.countOpsEvent('ops.batch-orchestrator.run-completed.v1');
    metrics.countOpsEvent('ops.gateway.service-started.v1');
    const labels = async (name: string) => (await metrics.registry.getSingleMetric(name)!.get()).values.map((v) => v.labels);
    // Random strings: `other`, `none` (the empty string) and at most a documented value hit by chance.
    expect((await labels('scrape_platform_scrapes_total')).length).toBeLessThanOrEqual(3);
    expect((await labels('scrape_platform_ops_events_published_total')).map((l) => l.event).sort()).toEqual(
      ['ops.batch-orchestrator.run-completed.v1', 'ops.gateway.service-started.v1', 'other'].sort(),
    );
  });

  it('names an absent value `none` and an unknown one `other`', () => {
    const known = new Set(['blocked']);
    expect([
      boundedLabel(null, known),
      boundedLabel('', known),
      boundedLabel('blocked', known),
      boundedLabel('https://x.example/a', known),
    ]).toEqual(['none', 'none', 'blocked', 'other']);
  });
});
