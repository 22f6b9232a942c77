import {
  type MonitorPageDirectives,
  type PageChange,
  type ScrapeExecutionFacts,
  type ScrapeRequest,
  type ScrapeResultBody,
  SUBJECTS,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { parse } from 'node-html-parser';
import { RE2 } from 're2-wasm';
import { PageFormatter } from '../formats/page-formatter';

/** A page a monitor is told is gone, rather than failing to answer: its version is a removal. */
const GONE_STATUSES = new Set([404, 410]);

/**
 * The page as a monitor compares it (decision 0038): the markdown of its HTML without the elements
 * the ignore selectors match, with the text the ignore patterns (RE2: linear time, whatever a client
 * writes) match taken out; and the extraction as the scrape made it.
 */
export function comparableMarkdown(
  formatter: PageFormatter,
  request: Pick<ScrapeRequest, 'only_main_content' | 'include_images' | 'browser'>,
  html: string,
  url: string,
  ignore: MonitorPageDirectives['ignore'],
): string {
  let cleaned = html;
  if (ignore.selectors.length > 0) {
    const root = parse(html, { comment: false });
    for (const selector of ignore.selectors) for (const element of root.querySelectorAll(selector)) element.remove();
    cleaned = root.toString();
  }
  const formatted = formatter.format(
    {
      format: 'markdown',
      extract: null,
      only_main_content: request.only_main_content,
      include_images: request.include_images,
      include_metadata: false,
    },
    cleaned,
    url,
    { scriptsRan: request.browser },
  );
  let markdown = formatted.markdown ?? '';
  for (const pattern of ignore.patterns) markdown = new RE2(pattern, 'gu').replace(markdown, '');
  return markdown;
}

/**
 * A monitor's page, compared with its version before: result-store keeps the versions and answers
 * with the change (keyed by job: asked again, it answers the same). The result then carries the
 * page as compared (`markdown`) and the `change`. A page that failed without being gone (a timeout,
 * a block) is not compared: its change is unknown, and the next tick tries again.
 */
@Injectable()
export class PageComparison {
  constructor(
    private readonly formatter: PageFormatter,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async compare(
    job: { clientId: string; jobId: string; request: Record<string, unknown> },
    directives: MonitorPageDirectives,
    facts: ScrapeExecutionFacts,
    result: ScrapeResultBody,
  ): Promise<ScrapeResultBody & { change: PageChange | null }> {
    const request = job.request as unknown as ScrapeRequest;
    const usable = facts.billable && result.statusCode >= 200 && result.statusCode < 300 && !facts.block_reason && result.html !== null;
    const gone = facts.billable && GONE_STATUSES.has(result.statusCode);
    if (!usable && !gone) return { ...result, change: null };
    const content = usable ? comparableMarkdown(this.formatter, request, result.html!, request.url, directives.ignore) : null;
    const { change } = await this.bus.request(
      SUBJECTS.pageVersions.record,
      {
        client_id: job.clientId,
        monitor_id: directives.monitor_id,
        run_id: directives.run_id,
        job_id: job.jobId,
        url: request.url,
        content,
        extracted: usable ? (result.extracted_data ?? null) : null,
        fetched_at: new Date().toISOString(),
      },
      { correlationId: `job:${job.jobId}`, timeoutMs: 10_000 },
    );
    return { ...result, markdown: content ?? result.markdown, change };
  }
}
