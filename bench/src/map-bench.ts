import zlib from 'node:zlib';
import { importEsm } from '@lib/runtime';
import { normalUrl } from '@lib/url-normal-form';
import type { GeneratedSite } from './generated-site';

export interface MapBenchFigures {
  /** Median wall time of POST /v1/map of the whole site (sitemaps + links at the defaults), ms. */
  mapMedianMs: number;
  /** Median wall time of the same map with sitemap=only, ms. */
  sitemapOnlyMedianMs: number;
  /** Median wall time of a bare sitemap reader (got-scraping, regex over <loc>, no scope, robots or limits), ms. */
  bareSitemapMedianMs: number;
  urlsListed: number;
  articlesMissing: number;
  listPagesMissing: number;
  duplicates: number;
  disallowedListed: number;
  disallowedFetched: number;
  runs: number;
}

/**
 * Issue 39's map figure: the 10,000-article generated site (sitemap index of gzip members, robots
 * with disallows, 20 sections of list pages) mapped through the API, beside the least a client could
 * do by hand to list the same sitemap URLs — fetch the index and its members with got-scraping and
 * pull `<loc>`s out with a regular expression — so the ratio shows what robots, scope, the normal
 * form, links and the bounds cost. Correctness is counted on the same answers.
 */
export async function benchMap(platformUrl: string, token: string, site: GeneratedSite, runs = 3): Promise<MapBenchFigures> {
  const { gotScraping } = await importEsm<{
    gotScraping: (url: string, o?: object) => Promise<{ statusCode: number; rawBody: Buffer; body: string }>;
  }>('got-scraping');
  const bareRead = async (): Promise<number> => {
    const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]);
    const index = await gotScraping(`${site.url}/sitemap.xml`, { retry: { limit: 0 } });
    const members = await Promise.all(
      locs(index.body).map(async (member) => {
        const response = await gotScraping(member, { retry: { limit: 0 }, responseType: 'buffer', decompress: true });
        const raw = response.rawBody;
        return locs((raw[0] === 0x1f && raw[1] === 0x8b ? zlib.gunzipSync(raw) : raw).toString('utf8'));
      }),
    );
    return new Set(members.flat()).size;
  };
  const mapOnce = async (body: Record<string, unknown>) => {
    const started = performance.now();
    const response = await fetch(`${platformUrl}/v1/map`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const result = (await response.json()) as { urls: string[]; count: number };
    if (response.status !== 200) throw new Error(`map answered ${response.status}: ${JSON.stringify(result).slice(0, 300)}`);
    return { ms: performance.now() - started, result };
  };
  const bare: number[] = [];
  const full: number[] = [];
  const only: number[] = [];
  let last: { urls: string[]; count: number } | null = null;
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    await bareRead();
    bare.push(performance.now() - started);
    site.hits.clear();
    const mapped = await mapOnce({ url: `${site.url}/`, limit: 100_000 });
    full.push(mapped.ms);
    last = mapped.result;
    only.push((await mapOnce({ url: `${site.url}/`, limit: 100_000, sitemap: 'only' })).ms);
  }
  const keyOf = (url: string) => normalUrl(url)?.key ?? url;
  const keys = last!.urls.map(keyOf);
  const listed = new Set(keys);
  const disallowed = site.truth.disallowedPaths;
  return {
    mapMedianMs: median(full),
    sitemapOnlyMedianMs: median(only),
    bareSitemapMedianMs: median(bare),
    urlsListed: last!.count,
    articlesMissing: site.truth.articles.filter((u) => !listed.has(keyOf(u))).length,
    listPagesMissing: site.truth.listPages.filter((u) => !listed.has(keyOf(u))).length,
    duplicates: keys.length - listed.size,
    disallowedListed: disallowed.filter((p) => listed.has(keyOf(`${site.url}${p}`))).length,
    // hits were cleared before the last full map; the sitemap-only map after it fetches no page.
    disallowedFetched: disallowed.reduce((n, p) => n + (site.hits.get(p) ?? 0), 0),
    runs,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]);
}
