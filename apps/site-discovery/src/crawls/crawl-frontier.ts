import { createHash } from 'node:crypto';
import type { RobotsBook } from '../robots/robots-book';
import type { SiteScope } from '../scope/site-scope';
import { normalUrl, type NormalUrl } from '@lib/url-normal-form';

/**
 * The job id of a crawl's page: a name-based UUID (RFC 9562 v5 layout, SHA-1) of the crawl and the
 * page's normal form, so the same page gets the same job however often it is found or appended.
 */
export function pageJobId(crawlId: string, key: string): string {
  const hash = createHash('sha1').update(crawlId).update('\n').update(key).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The job id of a page that turned out to stand on its own (its rel=canonical names a page the crawl
 * may not scrape): a second job for the same page, scraped as it is (no twin check).
 */
export function standaloneJobId(crawlId: string, key: string): string {
  return pageJobId(crawlId, `${key}\nstandalone`);
}

export type CrawlSkipReason = 'robots' | 'scope' | 'trap' | 'depth' | 'over_limit' | 'duplicate';
export type SkipCounts = Record<CrawlSkipReason, number>;

/** A URL a crawl may admit (already normalised, in scope and allowed): admitted while max_pages has room. */
export interface PageCandidate {
  key: string;
  url: string;
  depth: number;
  jobId: string;
}

export interface FrontierVerdicts {
  candidates: PageCandidate[];
  refused: Partial<SkipCounts>;
}

/**
 * What a crawl makes of links found at `depth - 1`: each in its normal form, once, then scope and
 * trap rules, robots.txt, and max_depth, in that order; what passes is a candidate (admitted by the
 * store while max_pages has room), what does not is counted by reason.
 */
export async function sortLinks(
  crawlId: string,
  links: string[],
  depth: number,
  rules: { scope: SiteScope; robots: RobotsBook; maxDepth: number },
): Promise<FrontierVerdicts> {
  const refused: Partial<SkipCounts> = {};
  const count = (reason: keyof SkipCounts) => (refused[reason] = (refused[reason] ?? 0) + 1);
  const seen = new Set<string>();
  const candidates: PageCandidate[] = [];
  for (const link of links) {
    const normal = normalUrl(link);
    if (!normal || seen.has(normal.key)) continue;
    seen.add(normal.key);
    const verdict = rules.scope.verdict(normal);
    if (verdict !== 'in') {
      count(verdict);
      continue;
    }
    if (!(await rules.robots.policyFor(new URL(normal.url))).allows(normal.url)) {
      count('robots');
      continue;
    }
    if (depth > rules.maxDepth) {
      count('depth');
      continue;
    }
    candidates.push(candidateOf(crawlId, normal, depth));
  }
  return { candidates, refused };
}

export function candidateOf(crawlId: string, normal: NormalUrl, depth: number): PageCandidate {
  return { key: normal.key, url: normal.url, depth, jobId: pageJobId(crawlId, normal.key) };
}

/** What one admission does to a crawl: the candidates it takes (in order) and the skip counts after it. */
export interface Admission {
  taken: PageCandidate[];
  skipped: Partial<SkipCounts>;
}

/**
 * One admission, decided: a page found at two depths counts at the smaller (the start page a
 * sitemap lists too, a page linked from two levels: its links are then one level below that); a
 * key the crawl already has is not admitted again; what is new is taken in order while max_pages
 * has room, and the rest counts as over_limit beside the refusals the frontier counted. The store
 * applies it with the crawl row locked, so concurrent admissions cannot overshoot.
 */
export function admissionOf(
  candidates: PageCandidate[],
  crawl: { admitted: number; maxPages: number; skipped: Partial<SkipCounts> },
  known: ReadonlySet<string>,
  refused: Partial<SkipCounts>,
): Admission {
  const fresh = [...smallestDepthOf(candidates).values()].filter((c) => !known.has(c.key));
  const room = Math.max(0, crawl.maxPages - crawl.admitted);
  const taken = fresh.slice(0, room);
  const skipped = { ...crawl.skipped };
  for (const [reason, n] of Object.entries(refused) as Array<[CrawlSkipReason, number]>) skipped[reason] = (skipped[reason] ?? 0) + n;
  if (fresh.length > taken.length) skipped.over_limit = (skipped.over_limit ?? 0) + fresh.length - taken.length;
  return { taken, skipped };
}

/** Each key once, at the smallest depth it was found at, in the order keys were first found. */
export function smallestDepthOf(candidates: PageCandidate[]): Map<string, PageCandidate> {
  const unique = new Map<string, PageCandidate>();
  for (const c of candidates) if (!unique.has(c.key) || unique.get(c.key)!.depth > c.depth) unique.set(c.key, c);
  return unique;
}
