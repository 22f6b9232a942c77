import { http } from './http';

export interface CrawlJob {
  job_id: string;
  url: string;
  status: string;
  credits: number;
  retries_attempted: number;
}

/** Every page job of a crawl, through the public listing (GET /v1/jobs?batch_id=…), following its cursor. */
export async function crawlJobs(baseUrl: string, token: string, crawlId: string): Promise<CrawlJob[]> {
  const jobs: CrawlJob[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { items: CrawlJob[]; cursor_next: string | null; has_more: boolean } } = await http(
      baseUrl,
      `/v1/jobs?batch_id=${crawlId}&limit=500${cursor ? `&cursor=${cursor}` : ''}`,
      { token },
    );
    jobs.push(...page.body.items);
    cursor = page.body.has_more ? page.body.cursor_next : null;
  } while (cursor);
  return jobs;
}
