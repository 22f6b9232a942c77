import { normalUrl } from '@lib/url-normal-form';
import { call } from './collection-bench';
import type { GeneratedSite } from './generated-site';

const PAGES = 1_000;
const DEADLINE_MS = 600_000;

export interface CrawlBenchFigures {
  crawlSeconds: number;
  crawlPagesPerSecond: number;
  collectionSeconds: number;
  collectionPagesPerSecond: number;
  pages: number;
  duplicates: number;
  disallowedFetched: number;
  overLimit: number;
  creditsCharged: number;
  forecastCredits: number;
  forecastSeconds: number | null;
}

interface CrawlView {
  crawl_id: string;
  status: string;
  discovered: number;
  credits_charged: number;
  plan: { forecast: Array<{ mode: string; credits: number; seconds: number | null }> } | null;
}

/**
 * Issue 39's crawl figures on the generated site: a 1,000-page crawl (the start page, the sitemaps'
 * URLs and links to depth 3, max_pages 1,000) beside a collection run of 1,000 of the same site's
 * articles, one after the other on the same platform (same workers, same per-host pages in flight);
 * the crawl's duplicates, disallowed fetches and pages over max_pages counted from its jobs and the
 * site's own hit counts; and a dry run's forecast of the same crawl beside what it was charged.
 */
export async function benchCrawl(baseUrl: string, token: string, site: GeneratedSite): Promise<CrawlBenchFigures> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const body = { url: `${site.url}/`, max_pages: PAGES, max_depth: 3 };
  const waitFor = async (id: string): Promise<CrawlView> => {
    const started = performance.now();
    for (;;) {
      const view = await call<CrawlView>(`${baseUrl}/v1/crawl/${id}`, { headers }, 200);
      if (view.status === 'completed') return view;
      if (performance.now() - started > DEADLINE_MS) throw new Error(`crawl ${id} did not complete: ${JSON.stringify(view)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const planned = await call<CrawlView>(
    `${baseUrl}/v1/crawl`,
    { method: 'POST', headers, body: JSON.stringify({ ...body, dry_run: true }) },
    202,
  );
  const plan = (await waitFor(planned.crawl_id)).plan!;
  const simple = plan.forecast.find((f) => f.mode === 'simple')!;

  site.hits.clear();
  const crawlStarted = performance.now();
  const started = await call<CrawlView>(`${baseUrl}/v1/crawl`, { method: 'POST', headers, body: JSON.stringify(body) }, 202);
  const crawl = await waitFor(started.crawl_id);
  const crawlSeconds = (performance.now() - crawlStarted) / 1000;
  const urls: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Array<{ url: string }>; has_more: boolean; cursor_next: string | null } = await call(
      `${baseUrl}/v1/jobs?batch_id=${crawl.crawl_id}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
      { headers },
      200,
    );
    urls.push(...page.items.map((j) => j.url));
    cursor = page.has_more ? page.cursor_next : null;
  } while (cursor);
  const keys = urls.map((u) => normalUrl(u)?.key ?? u);
  const disallowedFetched = site.truth.disallowedPaths.reduce((n, p) => n + (site.hits.get(p) ?? 0), 0);

  const collection = await call<{ id: string }>(
    `${baseUrl}/v1/async/collections`,
    {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'bench-crawl-baseline', requests: site.truth.articles.slice(0, PAGES).map((url) => ({ url })) }),
    },
    201,
  );
  const collectionStarted = performance.now();
  const run = await call<{ run_id: string }>(`${baseUrl}/v1/async/collections/${collection.id}/run`, { method: 'POST', headers }, 201);
  for (;;) {
    const status = await call<{ status: string }>(`${baseUrl}/v1/async/collections/${collection.id}/runs/${run.run_id}`, { headers }, 200);
    if (status.status === 'completed') break;
    if (performance.now() - collectionStarted > DEADLINE_MS) throw new Error('the baseline collection run did not complete');
    await new Promise((r) => setTimeout(r, 50));
  }
  const collectionSeconds = (performance.now() - collectionStarted) / 1000;

  return {
    crawlSeconds: round(crawlSeconds),
    crawlPagesPerSecond: round(urls.length / crawlSeconds),
    collectionSeconds: round(collectionSeconds),
    collectionPagesPerSecond: round(PAGES / collectionSeconds),
    pages: urls.length,
    duplicates: keys.length - new Set(keys).size,
    disallowedFetched,
    overLimit: Math.max(0, urls.length - PAGES),
    creditsCharged: crawl.credits_charged,
    forecastCredits: simple.credits,
    forecastSeconds: simple.seconds,
  };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
