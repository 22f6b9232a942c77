import type { CrawlPlan, CrawlRequest, CrawlState, LlmsTxtReport, ZeroPageReason } from '@lib/contracts';
import { DATABASE, DatabaseConnection, storableJson, type SqlTransaction } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { admissionOf, type PageCandidate, type SkipCounts, smallestDepthOf } from '../crawls/crawl-frontier';

export type { CrawlSkipReason, PageCandidate, SkipCounts } from '../crawls/crawl-frontier';

/** The request as stored: the client's, with the page scrape options settled and the plan's figures the run is opened with. */
export type StoredCrawlRequest = CrawlRequest & { plan: { max_concurrency: number; monthly_credits: number | null } };

export interface StoredCrawl {
  id: string;
  clientId: string;
  url: string;
  request: StoredCrawlRequest;
  state: CrawlState;
  robotsStatus: 'found' | 'none' | 'unavailable' | 'ignored';
  maxPages: number;
  maxDepth: number;
  pageCredits: number;
  maxCredits: number | null;
  admitted: number;
  skipped: Partial<SkipCounts>;
  zeroPagesReason: ZeroPageReason | null;
  plan: CrawlPlan | null;
  /** The site's /llms.txt as the crawl's start (or its plan's map) read it; null for a crawl stored before it was looked for. */
  llmsTxt: LlmsTxtReport | null;
  createdAt: Date;
  completedAt: Date | null;
}

export interface CrawlPageRow {
  key: string;
  url: string;
  depth: number;
  jobId: string;
}

const CRAWL_COLUMNS = `id, client_id "clientId", url, request, state, robots_status "robotsStatus", max_pages "maxPages", max_depth "maxDepth",
  page_credits "pageCredits", max_credits "maxCredits", admitted, skipped, zero_pages_reason "zeroPagesReason", plan,
  llms_txt "llmsTxt", created_at "createdAt", completed_at "completedAt"`;

const LIVE_STATES = `('running', 'paused', 'cancelling', 'planning')`;

/**
 * The `crawls` and `crawl_pages` tables, owned by site-discovery. A page is admitted in the
 * transaction that counts it (the crawl row locked), keyed by its normal form: never twice, never
 * past max_pages, whatever the number of workers or restarts. A crawl is worked by one discovery
 * worker at a time under a lease (a dead worker's crawl is taken over when the lease runs out).
 */
@Injectable()
export class CrawlStore {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async insert(crawl: Omit<StoredCrawl, 'admitted' | 'completedAt' | 'plan'>, seeds: PageCandidate[]): Promise<void> {
    await this.db.sql.transaction(async (tx) => {
      await tx.query(
        `insert into crawls (id, client_id, url, request, state, robots_status, max_pages, max_depth, page_credits, max_credits, admitted, skipped, zero_pages_reason, created_at, completed_at, llms_txt)
         values ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, 0, $11::jsonb, $12, $13, $14, $15::jsonb)`,
        [
          crawl.id,
          crawl.clientId,
          crawl.url,
          storableJson(crawl.request),
          crawl.state,
          crawl.robotsStatus,
          crawl.maxPages,
          crawl.maxDepth,
          crawl.pageCredits,
          crawl.maxCredits,
          storableJson(crawl.skipped),
          crawl.zeroPagesReason,
          crawl.createdAt,
          crawl.state === 'completed' ? crawl.createdAt : null,
          crawl.llmsTxt ? storableJson(crawl.llmsTxt) : null,
        ],
      );
      if (seeds.length > 0) await this.admitWithin(tx, crawl.id, seeds, {});
    });
  }

  async find(clientId: string, crawlId: string): Promise<StoredCrawl | null> {
    const [row] = await this.db.sql.query<StoredCrawl>(`select ${CRAWL_COLUMNS} from crawls where id = $1 and client_id = $2`, [
      crawlId,
      clientId,
    ]);
    return row ?? null;
  }

  async byId(crawlId: string): Promise<StoredCrawl | null> {
    const [row] = await this.db.sql.query<StoredCrawl>(`select ${CRAWL_COLUMNS} from crawls where id = $1`, [crawlId]);
    return row ?? null;
  }

  /**
   * Admits candidates in order while max_pages has room (the crawl row locked, so concurrent
   * admissions cannot overshoot), skipping keys the crawl already has; counts what was refused.
   * Returns how many were admitted.
   */
  async admit(crawlId: string, candidates: PageCandidate[], refused: Partial<SkipCounts>): Promise<number> {
    return this.db.sql.transaction((tx) => this.admitWithin(tx, crawlId, candidates, refused));
  }

  private async admitWithin(
    tx: SqlTransaction,
    crawlId: string,
    candidates: PageCandidate[],
    refused: Partial<SkipCounts>,
  ): Promise<number> {
    const [crawl] = await tx.query<{ admitted: number; maxPages: number; skipped: Partial<SkipCounts> }>(
      'select admitted, max_pages "maxPages", skipped from crawls where id = $1 for update',
      [crawlId],
    );
    if (!crawl) return 0;
    const unique = smallestDepthOf(candidates);
    const known =
      unique.size === 0
        ? new Set<string>()
        : new Set(
            (
              await tx.query<{ key: string }>(
                `with found as (select e->>'key' as key, (e->>'depth')::int as depth from jsonb_array_elements($2::jsonb) e),
                 lowered as (update crawl_pages p set depth = f.depth from found f
                   where p.crawl_id = $1 and p.key = f.key and p.depth > f.depth and p.state in ('new', 'queued') returning p.key)
                 select p.key from crawl_pages p join found f on f.key = p.key where p.crawl_id = $1`,
                [crawlId, storableJson([...unique.values()].map(({ key, depth }) => ({ key, depth })))],
              )
            ).map((r) => r.key),
          );
    const { taken, skipped } = admissionOf(candidates, crawl, known, refused);
    if (taken.length > 0)
      await tx.query(
        `insert into crawl_pages (crawl_id, key, url, depth, job_id, state)
         select $1, e->>'key', e->>'url', (e->>'depth')::int, (e->>'jobId')::uuid, 'new' from jsonb_array_elements($2::jsonb) e
         on conflict (crawl_id, key) do nothing`,
        [crawlId, storableJson(taken)],
      );
    await tx.query('update crawls set admitted = admitted + $2, skipped = $3::jsonb where id = $1', [
      crawlId,
      taken.length,
      storableJson(skipped),
    ]);
    return taken.length;
  }

  /**
   * A queued page whose rel=canonical names a page the crawl may not scrape (another path scope,
   * disallowed): it is appended again under `jobId` (its job as a page of its own), as a new page.
   * Conditional on the page still being queued under its first job, so a worker that took over
   * does it once.
   */
  async standAlone(crawlId: string, key: string, fromJobId: string, jobId: string): Promise<void> {
    await this.db.sql.query(
      `update crawl_pages set job_id = $4, state = 'new' where crawl_id = $1 and key = $2 and job_id = $3 and state = 'queued'`,
      [crawlId, key, fromJobId, jobId],
    );
  }

  async pagesIn(crawlId: string, state: 'new' | 'queued', limit: number): Promise<CrawlPageRow[]> {
    return this.db.sql.query<CrawlPageRow>(
      `select key, url, depth, job_id "jobId" from crawl_pages where crawl_id = $1 and state = $2 order by seq limit $3`,
      [crawlId, state, limit],
    );
  }

  /** Pages not yet ended: admitted but not on the run (new), or on it and not finished (queued). */
  async countWaiting(crawlId: string): Promise<number> {
    const [row] = await this.db.sql.query<{ n: number }>(
      "select count(*)::int n from crawl_pages where crawl_id = $1 and state in ('new', 'queued')",
      [crawlId],
    );
    return row.n;
  }

  async markPages(crawlId: string, keys: string[], state: 'queued' | 'read'): Promise<void> {
    if (keys.length === 0) return;
    await this.db.sql.query('update crawl_pages set state = $3 where crawl_id = $1 and key = any($2::text[])', [crawlId, keys, state]);
  }

  async setState(crawlId: string, state: CrawlState, ended?: { at: Date; zeroPagesReason: ZeroPageReason | null }): Promise<void> {
    await this.db.sql.query(
      `update crawls set state = $2, completed_at = coalesce(completed_at, $3), zero_pages_reason = coalesce(zero_pages_reason, $4) where id = $1`,
      [crawlId, state, ended?.at ?? null, ended?.zeroPagesReason ?? null],
    );
  }

  /**
   * The next live crawl for this worker, leased for `leaseMs` (its own lease renewed, another's
   * taken over once it ran out); null when there is none. Least recently worked first.
   */
  async claimNext(owner: string, now: Date, leaseMs: number, skip: string[]): Promise<StoredCrawl | null> {
    return this.db.sql.transaction(async (tx) => {
      const [row] = await tx.query<{ id: string }>(
        `select id from crawls
         where state in ${LIVE_STATES} and (lease_until is null or lease_until < $1 or lease_owner = $2) and not (id = any($3::uuid[]))
         order by lease_until nulls first, created_at limit 1 for update skip locked`,
        [now, owner, skip],
      );
      if (!row) return null;
      const [crawl] = await tx.query<StoredCrawl>(
        `update crawls set lease_owner = $2, lease_until = $3 where id = $1 returning ${CRAWL_COLUMNS}`,
        [row.id, owner, new Date(now.getTime() + leaseMs)],
      );
      return crawl;
    });
  }

  /** A dry run's plan, made: the crawl is planned (once; a plan made again by a worker that took over changes nothing). */
  async savePlan(crawlId: string, plan: CrawlPlan, llmsTxt: LlmsTxtReport, at: Date): Promise<void> {
    await this.db.sql.query(
      `update crawls set plan = $2::jsonb, state = 'planned', completed_at = $3, admitted = $4, llms_txt = $5::jsonb where id = $1 and state = 'planning'`,
      [crawlId, storableJson(plan), at, plan.discovered, storableJson(llmsTxt)],
    );
  }

  /** Renews this worker's hold on the crawl while its turn runs (a plan's map and analyses take a minute or two). */
  async extendLease(crawlId: string, owner: string, until: Date): Promise<void> {
    await this.db.sql.query('update crawls set lease_until = $3 where id = $1 and lease_owner = $2', [crawlId, owner, until]);
  }

  /** Every lease let go (the embedded runtime at start: whoever held them is gone). */
  async releaseAllLeases(): Promise<void> {
    await this.db.sql.query('update crawls set lease_until = null, lease_owner = null where lease_until is not null');
  }

  async release(crawlId: string, owner: string, until: Date): Promise<void> {
    await this.db.sql.query('update crawls set lease_until = $3 where id = $1 and lease_owner = $2', [crawlId, owner, until]);
  }
}
