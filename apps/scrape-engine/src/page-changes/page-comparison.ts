import {
  deliveredUsableContent,
  type MonitorPageDirectives,
  type PageChange,
  type ScrapeExecutionFacts,
  type ScrapeResultBody,
  SUBJECTS,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { isOutage } from '../job-worker/outages';

/** How long a page's record is asked again through an outage before the job fails (and is retried). */
const RECORD_PATIENCE_MS = 30_000;

/** A page a monitor is told is gone, rather than failing to answer: its version is a removal. */
const GONE_STATUSES = new Set([404, 410]);

/**
 * A monitor's page, compared with its version before: the scrape made its markdown as its monitor
 * compares it (ScrapeExecution, with the monitor's directives); result-store keeps the versions and
 * answers with the change (keyed by job: asked again, it answers the same). A page that failed
 * without being gone (a timeout, a block, content the success rules refuse) is not compared: its
 * change is unknown, and the next tick tries again.
 */
@Injectable()
export class PageComparison {
  private readonly logger = new Logger('PageComparison');

  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  async compare(
    job: { clientId: string; jobId: string; attempt: number; url: string },
    directives: MonitorPageDirectives,
    facts: ScrapeExecutionFacts,
    result: ScrapeResultBody,
  ): Promise<ScrapeResultBody & { change: PageChange | null }> {
    // What a job counts as a success is what a monitor compares: a 2xx the content rules call a block
    // or an empty shell is not the page, and comparing it would report a change that is not one.
    const usable = deliveredUsableContent(facts, result) && result.markdown !== null;
    const gone = facts.billable && GONE_STATUSES.has(result.statusCode);
    if (!usable && !gone) return { ...result, change: null };
    const record = {
      client_id: job.clientId,
      monitor_id: directives.monitor_id,
      run_id: directives.run_id,
      job_id: job.jobId,
      attempt: job.attempt,
      url: job.url,
      content: usable ? result.markdown : null,
      extracted: usable ? (result.extracted_data ?? null) : null,
      fetched_at: new Date().toISOString(),
      ...(directives.crawl_scope === true ? { crawl_scope: true } : {}),
    };
    // Through an outage of result-store or the database the page is not fetched again: its record is
    // asked again (keyed by job, a repeat answers the same) until RECORD_PATIENCE_MS has passed.
    const giveUpAt = Date.now() + RECORD_PATIENCE_MS;
    for (let waitMs = 250; ; waitMs = Math.min(2 * waitMs, 2000)) {
      try {
        const { change } = await this.bus.request(SUBJECTS.pageVersions.record, record, {
          correlationId: `job:${job.jobId}`,
          timeoutMs: 10_000,
        });
        return { ...result, change };
      } catch (error) {
        if (!isOutage(error) || Date.now() + waitMs > giveUpAt) throw error;
        this.logger.warn(
          `recording the page of job ${job.jobId}: ${error instanceof Error ? error.message : String(error)}; asking again in ${waitMs} ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }
}
