import { CLIENT_JOB_PAGE_LIMITS, type JobResultBody, LLMS_TXT_LIMITS, type LlmsTxtQuery, type LlmsTxtView, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { CrawlViews } from '../crawls/crawl-views';
import { InvalidCrawlStateError } from '../site-discovery.errors';
import { type IndexedPage, writeLlmsTxt } from './llms-txt-writer';

/** Stored results read side by side: a thousand pages in a few seconds without holding every result at once. */
const READERS = 8;
const REPLY_TIMEOUT_MS = 60_000;

/**
 * GET /v1/llms-txt/{crawl_id}: the llms.txt of a crawl that has ended, made from its scraped pages'
 * own metadata and markdown (llms-txt-writer), at most 1,000 of them; while it runs, where it stands.
 * Made on each ask from the stored results: nothing to keep in step, and nothing charged.
 */
@Injectable()
export class CrawlLlmsTxt {
  constructor(
    private readonly views: CrawlViews,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async make(query: LlmsTxtQuery): Promise<LlmsTxtView> {
    const crawl = await this.views.get(query);
    if (crawl.state === 'planning' || crawl.state === 'planned')
      throw new InvalidCrawlStateError(
        'A dry run scrapes no page, so it has nothing to make an llms.txt from: start the crawl without dry_run.',
        {
          state: crawl.state,
        },
      );
    const view: LlmsTxtView = {
      crawl_id: crawl.crawl_id,
      url: crawl.url,
      status: 'in_progress',
      crawl_state: crawl.state,
      pages_scraped: crawl.completed,
      pages_listed: 0,
      truncated: false,
      credits_charged: crawl.credits_charged,
      title: null,
      summary: null,
      sections: [],
      llms_txt: null,
    };
    if (crawl.status !== 'completed') return view;
    const { jobs, more } = await this.scrapedPages(query);
    const pages = (await this.indexed(query.client_id, jobs)).filter((page): page is IndexedPage => page !== null);
    const written = writeLlmsTxt(crawl.url, pages);
    return {
      ...view,
      status: 'completed',
      pages_listed: written.sections.reduce((n, section) => n + section.links.length, 0),
      truncated: more,
      title: written.title,
      summary: written.summary,
      sections: written.sections.map((section) => ({ name: section.name, optional: section.optional, entries: section.links })),
      llms_txt: written.text,
    };
  }

  /** The crawl's pages that were scraped, up to the file's limit (and whether there were more). */
  private async scrapedPages(query: LlmsTxtQuery): Promise<{ jobs: Array<{ job_id: string; url: string }>; more: boolean }> {
    const jobs: Array<{ job_id: string; url: string }> = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await this.bus.unpack(
        await this.bus.request(
          SUBJECTS.jobs.listForClient,
          {
            client_id: query.client_id,
            batch_id: query.crawl_id,
            statuses: ['completed'],
            cursor,
            limit: Math.min(CLIENT_JOB_PAGE_LIMITS.max, LLMS_TXT_LIMITS.pages.max + 1 - jobs.length),
          },
          { timeoutMs: REPLY_TIMEOUT_MS },
        ),
      );
      for (const item of page.items) if (item.is_success) jobs.push({ job_id: item.job_id, url: item.url });
      if (jobs.length > LLMS_TXT_LIMITS.pages.max) return { jobs: jobs.slice(0, LLMS_TXT_LIMITS.pages.max), more: true };
      if (!page.has_more || !page.cursor_next) return { jobs, more: false };
      cursor = page.cursor_next;
    }
  }

  /** Each page's title, description and markdown from its stored result (a result gone to retention is left out). */
  private async indexed(clientId: string, jobs: Array<{ job_id: string; url: string }>): Promise<Array<IndexedPage | null>> {
    const out: Array<IndexedPage | null> = new Array(jobs.length).fill(null);
    let next = 0;
    const reader = async () => {
      while (next < jobs.length) {
        const at = next++;
        const job = jobs[at]!;
        const reply = await this.bus.request(
          SUBJECTS.jobs.data,
          { client_id: clientId, job_id: job.job_id },
          { timeoutMs: REPLY_TIMEOUT_MS },
        );
        if (!reply.found) continue;
        const body: JobResultBody = await this.bus.unpack(reply.result);
        out[at] = {
          url: body.metadata?.final_url ?? job.url,
          title: body.metadata?.title ?? null,
          description: body.metadata?.description ?? null,
          markdown: body.markdown ?? null,
        };
      }
    };
    await Promise.all(Array.from({ length: Math.min(READERS, jobs.length) }, reader));
    return out;
  }
}
