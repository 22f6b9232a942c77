import { type MonitorPageDirectives, type PageChange, type ScrapeExecutionFacts, type ScrapeResultBody, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';

/** A page a monitor is told is gone, rather than failing to answer: its version is a removal. */
const GONE_STATUSES = new Set([404, 410]);

/**
 * A monitor's page, compared with its version before: the scrape made its markdown as its monitor
 * compares it (ScrapeExecution, with the monitor's directives); result-store keeps the versions and
 * answers with the change (keyed by job: asked again, it answers the same). A page that failed
 * without being gone (a timeout, a block) is not compared: its change is unknown, and the next tick
 * tries again.
 */
@Injectable()
export class PageComparison {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  async compare(
    job: { clientId: string; jobId: string; url: string },
    directives: MonitorPageDirectives,
    facts: ScrapeExecutionFacts,
    result: ScrapeResultBody,
  ): Promise<ScrapeResultBody & { change: PageChange | null }> {
    const usable = facts.billable && result.statusCode >= 200 && result.statusCode < 300 && !facts.block_reason && result.markdown !== null;
    const gone = facts.billable && GONE_STATUSES.has(result.statusCode);
    if (!usable && !gone) return { ...result, change: null };
    const { change } = await this.bus.request(
      SUBJECTS.pageVersions.record,
      {
        client_id: job.clientId,
        monitor_id: directives.monitor_id,
        run_id: directives.run_id,
        job_id: job.jobId,
        url: job.url,
        content: usable ? result.markdown : null,
        extracted: usable ? (result.extracted_data ?? null) : null,
        fetched_at: new Date().toISOString(),
      },
      { correlationId: `job:${job.jobId}`, timeoutMs: 10_000 },
    );
    return { ...result, change };
  }
}
