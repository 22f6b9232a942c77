import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import {
  CRAWL_LIMITS,
  CRAWL_PAGE_DIRECTIVES,
  type CrawlPageDirectives,
  type DuplicateOf,
  type JobResultBody,
  SUBJECTS,
  type ZeroPageReason,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { CLOCK, Clock, PeriodicTask } from '@lib/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type CrawlPageRow, CrawlStore, type StoredCrawl } from '../persistence/crawl.store';
import type { OpenCrawlRunCommand } from '@lib/contracts';
import { normalUrl } from '@lib/url-normal-form';
import { pageJobId, sortLinks, standaloneJobId } from './crawl-frontier';
import { CrawlPlanner } from './crawl-planner';
import { type CrawlRules, CrawlRulebook } from './crawl-rulebook';

/** How often the worker looks for crawls with work; a crawl's own pass is also run at once when it is created. */
const POLL_MS = 100;
/**
 * With no live crawl, the worker looks only every this many polls (once a second): a crawl created
 * here wakes it at once, and one left by a dead worker waits out its lease (seconds) anyway. Every
 * look is a transaction; ten a second kept the embedded database's thread 4–7 % busy on an idle
 * platform, so it never counted as idle and never gave back its memory (decision 0030).
 */
const IDLE_POLL_EVERY = 10;
/** Crawls one pass works on at most (each once). */
const CRAWLS_PER_PASS = 20;
/** Page outcomes asked per crawl per pass. */
const OUTCOMES_PER_PASS = 1_000;
/** Status codes that mean the site refused us rather than failed. */
const REFUSALS = new Set([401, 403, 407, 429, 451, 503]);

/**
 * Drives crawls (issue 39). Each pass, for each live crawl it can lease: reads which of its queued
 * pages have ended; for each that succeeded, reads the page's links (its job's metadata) and admits
 * the new in-scope, allowed links within max_depth and max_pages; for each that turned out to be
 * another page (a redirect, a rel=canonical: scrape-engine tells it, the job is not charged), admits
 * the page it is instead (followTwin); then appends admitted pages to the run, no more in flight than
 * per-host politeness allows (DISCOVERY_HOST_CONCURRENCY; one, spaced by Crawl-delay, when
 * robots.txt asks); and when no page is waiting or in flight, seals the run, which completes it
 * (and sends its webhook) once.
 *
 * Every step is idempotent, so a worker killed anywhere leaves nothing lost or done twice: a page is
 * admitted once (its normal form is the key), its job id is derived from it (appending again adds
 * nothing), its links are read again only if it was not marked read, and sealing is conditional.
 */
@Injectable()
export class CrawlWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CrawlWorker');
  private readonly owner = randomUUID();
  private readonly poll: PeriodicTask<void>;
  /** When each crawl with a Crawl-delay last had a page appended (ms since epoch). */
  private readonly lastAppend = new Map<string, number>();
  private stopping = false;
  /** Polls since the last pass that found no live crawl (0: the last pass found one, or the worker was woken). */
  private idlePolls = 0;

  constructor(
    private readonly store: CrawlStore,
    private readonly rulebook: CrawlRulebook,
    private readonly planner: CrawlPlanner,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {
    this.poll = new PeriodicTask('CrawlWorker', POLL_MS, () => this.tick());
  }

  async onApplicationBootstrap(): Promise<void> {
    // Embedded: this process is the database's only user, so a lease still held is a previous run's.
    if (!this.config.natsUrl) await this.store.releaseAllLeases();
    this.poll.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.poll.stop();
  }

  /** Runs a pass now (a new crawl's first pages go out without waiting for the next poll). */
  wake(): void {
    this.idlePolls = 0;
    void this.poll.runNow().catch((error: unknown) => this.logger.warn(`pass failed: ${String(error)}`));
  }

  /** A poll: a pass, unless the recent ones found no live crawl and this is not a polite time to look again. */
  private async tick(): Promise<void> {
    if (this.idlePolls > 0 && this.idlePolls++ % IDLE_POLL_EVERY !== 0) return;
    await this.pass();
  }

  /**
   * Works each live crawl once. A pass that moved anything (pages read or appended) is followed at
   * once by another rather than after POLL_MS: pages finish in milliseconds, and a crawl that waited
   * for the poll would keep its pages in flight far below what politeness allows.
   */
  private async pass(): Promise<void> {
    const worked: string[] = [];
    let moved = false;
    while (worked.length < CRAWLS_PER_PASS) {
      const crawl = await this.store.claimNext(this.owner, this.clock.now(), this.config.discoveryLeaseSeconds * 1000, worked);
      if (!crawl) break;
      worked.push(crawl.id);
      // The lease is renewed while the turn runs (a plan's map and analyses, a request that waits
      // out a restarting orchestrator), so it can stay short: a worker that dies mid-turn has its
      // crawl taken over within DISCOVERY_LEASE_SECONDS, and a live one never loses it mid-turn.
      const leaseMs = this.config.discoveryLeaseSeconds * 1000;
      const renewal = setInterval(
        () =>
          void this.store
            .extendLease(crawl.id, this.owner, new Date(this.clock.now().getTime() + leaseMs))
            .catch((error: unknown) => this.logger.warn(`crawl ${crawl.id}: lease not renewed (${String(error)})`)),
        Math.max(500, Math.floor(leaseMs / 3)),
      );
      try {
        moved = (await this.work(crawl)) || moved;
      } catch (error) {
        this.logger.warn(`crawl ${crawl.id}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        clearInterval(renewal);
        await this.store.release(crawl.id, this.owner, this.clock.now());
      }
    }
    this.idlePolls = worked.length === 0 ? Math.max(this.idlePolls, 1) : 0;
    if (moved && !this.stopping) setImmediate(() => this.wake());
  }

  /** One crawl's turn; true when it moved (pages read or appended, a plan made, the crawl ended). */
  private async work(crawl: StoredCrawl): Promise<boolean> {
    const rules = this.rulebook.rulesFor(crawl);
    if (crawl.state === 'planning') {
      const { plan, llmsTxt } = await this.planner.plan(crawl, rules);
      await this.store.savePlan(crawl.id, plan, llmsTxt, this.clock.now());
      this.rulebook.forget(crawl.id);
      return true;
    }
    const queued = await this.store.pagesIn(crawl.id, 'queued', OUTCOMES_PER_PASS);
    let inFlight = queued.length;
    let moved = false;
    if (queued.length > 0) {
      const { finished } = await this.bus.request(SUBJECTS.crawlRuns.outcomes, { run_id: crawl.id, job_ids: queued.map((p) => p.jobId) });
      const byJob = new Map(queued.map((p) => [p.jobId, p]));
      for (const outcome of finished) {
        const page = byJob.get(outcome.job_id);
        if (!page) continue;
        inFlight -= 1;
        moved = true;
        if (outcome.duplicate_of && crawl.state !== 'cancelling') {
          if ((await this.followTwin(crawl, page, outcome.duplicate_of, rules)) === 'stands-alone') continue;
        } else if (outcome.success && crawl.state !== 'cancelling' && rules.followLinks) await this.readLinks(crawl, page, rules);
        await this.store.markPages(crawl.id, [page.key], 'read');
      }
    }
    if (crawl.state === 'running') moved = (await this.appendPages(crawl, rules, inFlight)) || moved;
    const waiting = await this.store.countWaiting(crawl.id);
    if (crawl.state === 'cancelling' || waiting === 0) {
      const run = await this.bus.request(waiting === 0 && crawl.state !== 'cancelling' ? SUBJECTS.crawlRuns.seal : SUBJECTS.crawlRuns.get, {
        run_id: crawl.id,
      });
      if (run.status === 'completed') {
        const reason = run.success > 0 ? null : await this.zeroPagesReason(crawl, run.state);
        await this.store.setState(crawl.id, run.state, { at: this.clock.now(), zeroPagesReason: reason });
        this.rulebook.forget(crawl.id);
        this.lastAppend.delete(crawl.id);
        return true;
      }
    }
    return moved;
  }

  /** Appends waiting pages while politeness has room: DISCOVERY_HOST_CONCURRENCY in flight, or one spaced by Crawl-delay. */
  private async appendPages(crawl: StoredCrawl, rules: CrawlRules, inFlight: number): Promise<boolean> {
    const delay = (await rules.robots.policyFor(new URL(crawl.url))).crawlDelaySeconds();
    let room = delay ? Math.min(1, 1 - inFlight) : this.config.discoveryHostConcurrency - inFlight;
    if (delay && Date.now() - (this.lastAppend.get(crawl.id) ?? 0) < delay * 1000) room = 0;
    if (room <= 0) return false;
    const pages = await this.store.pagesIn(crawl.id, 'new', Math.min(room, CRAWL_LIMITS.appendChunk));
    if (pages.length === 0) return false;
    const request = crawl.request.scrape ?? {};
    await this.bus.request(SUBJECTS.crawlRuns.open, openRunCommand(crawl));
    const { state } = await this.bus.request(SUBJECTS.crawlRuns.append, {
      run_id: crawl.id,
      jobs: pages.map((page) => ({
        job_id: page.jobId,
        url: page.url,
        request: {
          ...request,
          url: page.url,
          [CRAWL_PAGE_DIRECTIVES]: { twins: page.jobId !== standaloneJobId(crawl.id, page.key) } satisfies CrawlPageDirectives,
        },
      })),
    });
    if (state === 'running' || state === 'paused')
      await this.store.markPages(
        crawl.id,
        pages.map((p) => p.key),
        'queued',
      );
    if (delay) this.lastAppend.set(crawl.id, Date.now());
    return true;
  }

  /**
   * A page that is another page (its job ended `cancelled` with duplicate_of, uncharged): the page
   * it is is admitted like a link found on it, at its own depth (a redirect or a canonical is no
   * hop), once however many addresses lead to it, and the twin counts in skipped.duplicate. A
   * redirect out of scope or disallowed counts where a link there would (nothing more is fetched:
   * a redirect cannot lead where a link could not). A canonical the crawl may not scrape leaves the
   * page standing on its own: it is appended again as itself, with no twin check.
   */
  private async followTwin(
    crawl: StoredCrawl,
    page: CrawlPageRow,
    twin: DuplicateOf,
    rules: CrawlRules,
  ): Promise<'admitted' | 'stands-alone'> {
    const sorted = await sortLinks(crawl.id, [twin.url], page.depth, rules);
    if (sorted.candidates.length > 0) {
      await this.store.admit(crawl.id, sorted.candidates, { duplicate: 1 });
      return 'admitted';
    }
    if (twin.reason === 'canonical') {
      await this.store.standAlone(crawl.id, page.key, page.jobId, standaloneJobId(crawl.id, page.key));
      return 'stands-alone';
    }
    await this.store.admit(crawl.id, [], sorted.refused);
    return 'admitted';
  }

  /** A finished page's links, admitted by the frontier's rules. */
  private async readLinks(crawl: StoredCrawl, page: CrawlPageRow, rules: CrawlRules): Promise<void> {
    const reply = await this.bus.request(SUBJECTS.jobs.data, { client_id: crawl.clientId, job_id: page.jobId });
    if (!reply.found) return;
    const body: JobResultBody = await this.bus.unpack(reply.result);
    const metadata = body.metadata;
    if (!metadata) return;
    const sorted = await sortLinks(crawl.id, metadata.links, page.depth + 1, rules);
    await this.store.admit(crawl.id, sorted.candidates, sorted.refused);
  }

  private async zeroPagesReason(crawl: StoredCrawl, state: string): Promise<ZeroPageReason> {
    if (crawl.zeroPagesReason) return crawl.zeroPagesReason;
    if (state === 'cancelled') return 'cancelled';
    const start = normalUrl(crawl.url)!;
    const reply = await this.bus
      .request(SUBJECTS.jobs.data, { client_id: crawl.clientId, job_id: pageJobId(crawl.id, start.key) })
      .catch(() => null);
    if (reply?.found) {
      const body: JobResultBody = await this.bus.unpack(reply.result);
      if (REFUSALS.has(body.statusCode)) return 'blocked';
    }
    return 'failed';
  }
}

/** The crawl's run on the job engine, as the launcher opens it and a worker opens it again (idempotent) after a crash. */
export function openRunCommand(crawl: Pick<StoredCrawl, 'id' | 'clientId' | 'url' | 'request'>): OpenCrawlRunCommand {
  return {
    run_id: crawl.id,
    client_id: crawl.clientId,
    name: `crawl of ${crawl.url}`.slice(0, 2048),
    max_concurrency: crawl.request.plan.max_concurrency,
    monthly_credits: crawl.request.plan.monthly_credits,
    callback_url: crawl.request.callback_url ?? null,
    page_webhooks: crawl.request.page_webhooks === true,
  };
}
