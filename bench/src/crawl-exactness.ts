import 'reflect-metadata';
import { loadPlatformConfig } from '@lib/config';
import { normalUrl } from '@lib/url-normal-form';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPlatform } from '../../apps/platform/src/platform';
import { call } from './collection-bench';
import { type GeneratedSite, startGeneratedSite } from './generated-site';

/** The site the figure is measured on (startGeneratedSite({ articles: EXACTNESS_ARTICLES })). */
export const EXACTNESS_ARTICLES = 1_000;
const DEADLINE_MS = 900_000;
/** Addresses of the generated site that are another page: print copies (rel=canonical) and redirects. */
const TWIN_PATH = /\/print$|^\/old\/|^\/moved\//;

export interface CrawlExactnessFigures {
  /** Pages the crawl returned (jobs that ran as pages of their own: completed or failed). */
  pages: number;
  /** Of those, how many are another page (a print copy, an old address) or a second spelling of one. */
  duplicatePages: number;
  /** (pages − duplicatePages) ÷ pages. */
  precision: number;
  /** Articles of the site the crawl returned ÷ articles. */
  articleRecall: number;
  /** Jobs that turned out to be another page (cancelled, uncharged, skipped.duplicate). */
  twins: number;
  /** URLs of the site fetched more than once during the crawl (robots.txt and sitemaps aside). */
  fetchedTwice: number;
  creditsCharged: number;
  forecastCredits: number;
  /** forecastCredits ÷ creditsCharged (goal 0.8–1.2). */
  forecastRatio: number;
  seconds: number;
}

/**
 * Issue 61's crawl exactness on a 1,000-article generated site with its traps (print copies naming
 * the article as canonical, /old/ → /moved/ → article redirect chains, calendars, searches, soft
 * 404s, blocks, robots.txt disallows): the whole site crawled (max_pages 10,000, max_depth 3,
 * sitemaps on), and a dry run of the same crawl first. What it counts is what a client pays for and
 * gets: pages returned, how many are duplicates, every URL fetched once, credits against forecast.
 */
export async function benchCrawlExactness(baseUrl: string, token: string, site: GeneratedSite): Promise<CrawlExactnessFigures> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const body = { url: `${site.url}/`, max_pages: 10_000, max_depth: 3 };
  const waitFor = async (id: string) => {
    const started = performance.now();
    for (;;) {
      const view = await call<{
        status: string;
        credits_charged: number;
        plan: { forecast: Array<{ mode: string; credits: number }> } | null;
      }>(`${baseUrl}/v1/crawl/${id}`, { headers }, 200);
      if (view.status === 'completed') return view;
      if (performance.now() - started > DEADLINE_MS) throw new Error(`crawl ${id} did not complete`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const planned = await call<{ crawl_id: string }>(
    `${baseUrl}/v1/crawl`,
    { method: 'POST', headers, body: JSON.stringify({ ...body, dry_run: true }) },
    202,
  );
  const forecastCredits = (await waitFor(planned.crawl_id)).plan!.forecast.find((f) => f.mode === 'simple')!.credits;

  site.hits.clear();
  const started = performance.now();
  const crawl = await call<{ crawl_id: string }>(`${baseUrl}/v1/crawl`, { method: 'POST', headers, body: JSON.stringify(body) }, 202);
  const done = await waitFor(crawl.crawl_id);
  const seconds = (performance.now() - started) / 1000;
  const jobs: Array<{ url: string; status: string }> = [];
  let cursor: string | null = null;
  do {
    const page: { items: Array<{ url: string; status: string }>; has_more: boolean; cursor_next: string | null } = await call(
      `${baseUrl}/v1/jobs?batch_id=${crawl.crawl_id}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
      { headers },
      200,
    );
    jobs.push(...page.items);
    cursor = page.has_more ? page.cursor_next : null;
  } while (cursor);
  const pages = jobs.filter((j) => j.status !== 'cancelled');
  const seen = new Set<string>();
  let duplicatePages = 0;
  for (const job of pages) {
    const key = normalUrl(job.url)?.key ?? job.url;
    if (seen.has(key) || TWIN_PATH.test(new URL(job.url).pathname)) duplicatePages += 1;
    seen.add(key);
  }
  const articles = site.truth.articles.filter((u) => seen.has(normalUrl(u)!.key)).length;
  const fetchedTwice = [...site.hits.entries()].filter(([p, n]) => n > 1 && p !== '/robots.txt' && !p.startsWith('/sitemap')).length;
  return {
    pages: pages.length,
    duplicatePages,
    precision: round(pages.length === 0 ? 0 : (pages.length - duplicatePages) / pages.length),
    articleRecall: round(articles / site.truth.articles.length),
    twins: jobs.length - pages.length,
    fetchedTwice,
    creditsCharged: done.credits_charged,
    forecastCredits,
    forecastRatio: round(done.credits_charged === 0 ? 0 : forecastCredits / done.credits_charged),
    seconds: round(seconds),
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** `node dist/bench/src/crawl-exactness.js`: this figure alone, on an embedded platform of its own. */
async function standalone(): Promise<void> {
  const site = await startGeneratedSite({ articles: EXACTNESS_ARTICLES });
  const platform = await startPlatform(
    loadPlatformConfig({
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'crawl-exactness-')),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
    }),
  );
  try {
    const admin = platform.bootstrapTokens.find((t) => t.clientId === 'admin')!.token!;
    const created = await call<{ token: string }>(
      `${platform.url}/v1/admin/clients`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ plan: 'enterprise', rate_limit_per_minute: 1_000_000 }),
      },
      201,
    );
    console.log(JSON.stringify(await benchCrawlExactness(platform.url, created.token, site), null, 2));
  } finally {
    await platform.stop();
    await site.close();
  }
}

if (require.main === module)
  void standalone().then(
    () => process.exit(0),
    (error: unknown) => (console.error(error), process.exit(1)),
  );
