import { CrawlReference, CrawlRunFigures, CrawlView, SUBJECTS } from '@lib/contracts';
import { AppError } from '@lib/errors';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { CrawlNotFoundError } from '../site-discovery.errors';
import { CrawlStore, type StoredCrawl } from '../persistence/crawl.store';

/** GET /v1/crawl/{id}: the crawl's own counters beside its run's (the job engine's truth about pages). */
@Injectable()
export class CrawlViews {
  constructor(
    private readonly store: CrawlStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async get(reference: CrawlReference): Promise<CrawlView> {
    const crawl = await this.store.find(reference.client_id, reference.crawl_id);
    if (!crawl) throw new CrawlNotFoundError(`Crawl ${reference.crawl_id} not found.`);
    // A dry run has no run; a crawl's run is there from its creation (a lookup that fails shows zeros, never an error).
    const planOnly = crawl.state === 'planning' || crawl.state === 'planned';
    const run = planOnly
      ? null
      : await this.bus.request(SUBJECTS.crawlRuns.get, { run_id: crawl.id }).catch((error: unknown) => {
          // Only the moment between storing a crawl and opening its run (a crash there; the worker opens it).
          // 'batch.batch_not_found': what an orchestrator of the previous release raises for a crawl
          // run it has not opened, during a rolling upgrade (decision 0036).
          if (error instanceof AppError && (error.code === 'run.not_found' || error.code === 'batch.batch_not_found')) return null;
          throw error;
        });
    return viewOf(crawl, run);
  }
}

export function viewOf(crawl: StoredCrawl, run: CrawlRunFigures | null): CrawlView {
  const skipped = crawl.skipped;
  const done = run ? run.success + run.failed + run.timeout : 0;
  return {
    crawl_id: crawl.id,
    url: crawl.url,
    state: crawl.state,
    status: crawl.state === 'completed' || crawl.state === 'cancelled' || crawl.state === 'planned' ? 'completed' : 'in_progress',
    discovered: crawl.admitted,
    queued: Math.max(0, crawl.admitted - done),
    completed: run?.success ?? 0,
    // Pages that ran and failed: a cancelled job (a twin of another page, or a page a cancel ended before it ran) is not one.
    failed: run ? run.failed - run.cancelled + run.timeout : 0,
    skipped: {
      robots: skipped.robots ?? 0,
      scope: skipped.scope ?? 0,
      trap: skipped.trap ?? 0,
      depth: skipped.depth ?? 0,
      over_limit: skipped.over_limit ?? 0,
      duplicate: skipped.duplicate ?? 0,
    },
    credits_charged: run?.credits_charged ?? 0,
    max_pages: crawl.maxPages,
    max_credits: crawl.maxCredits,
    robots: crawl.robotsStatus,
    zero_pages_reason: crawl.zeroPagesReason,
    results_path: crawl.state === 'planning' || crawl.state === 'planned' ? null : `/v1/jobs?batch_id=${crawl.id}`,
    plan: crawl.plan,
    llms_txt: crawl.llmsTxt,
    created_at: Math.floor(crawl.createdAt.getTime() / 1000),
    completed_at: crawl.completedAt ? Math.floor(crawl.completedAt.getTime() / 1000) : null,
  };
}
