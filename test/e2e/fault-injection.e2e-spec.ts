import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { distributedInfrastructureAvailable, TEST_WEBHOOK_SECRET_KEYS } from '../support/infrastructure';
import {
  natsServerAvailable,
  type PrivateServer,
  privatePostgresAvailable,
  startPrivateNats,
  startPrivatePostgres,
} from '../support/private-servers';
import { crawlJobs } from './support/crawl-jobs';
import { eventually } from './support/eventually';
import { http as call } from './support/http';
import { buildDist, freePort, startProcess, startService, type ServiceProcess } from './support/service-process';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { type GeneratedSite, startGeneratedSite } from '../../bench/src/generated-site';
import { normalUrl } from '@lib/url-normal-form';

/**
 * Fault injection in the distributed runtime, as Kubernetes runs it: every context its own OS
 * process under `npm run stack` (which restarts a dead one, like a Deployment), on a NATS server
 * and a Postgres cluster of this test's own, so they can be crashed too. Each fault strikes in the
 * middle of a run of slow jobs; the run must complete with the invariant (total = success + failed
 * + timeout), every job listed exactly once, one webhook delivery id, and the credits charged equal
 * to the ledger, within 10 s of the fault with the default job lease. The time from the fault until
 * the platform is healthy again, and until the run completes, is printed. A sync scrape whose engine is killed must be answered within 5 s, 503,
 * uncharged, its hold released.
 */
const RUN_SIZE = 40;
const JOB_MS = 400;

/** The webhooks a receiver got: which delivery, for which run, which event and (crawl.page) which job (anything else left out). */
function hooksOf(receiver: WebhookReceiver): Array<{ deliveryId: string; runId: string; event: string; jobId: string | null }> {
  return receiver.received.flatMap((hit) => {
    try {
      const body = JSON.parse(hit.raw) as { run_id: unknown; event: unknown; job_id?: unknown };
      return [
        {
          deliveryId: String(hit.headers['x-service-delivery-id']),
          runId: String(body.run_id),
          event: String(body.event),
          jobId: typeof body.job_id === 'string' ? body.job_id : null,
        },
      ];
    } catch {
      return []; // not a webhook
    }
  });
}

const available = distributedInfrastructureAvailable() && natsServerAvailable() && privatePostgresAvailable();

(available ? describe : describe.skip)('fault injection: every context its own process (npm run stack)', () => {
  let nats: PrivateServer;
  let postgres: PrivateServer;
  let site: FixtureSite;
  let crawlSite: GeneratedSite;
  let receiver: WebhookReceiver;
  let stack: ServiceProcess;
  let stackEnv: Record<string, string>;
  let url: string;
  let token: string;
  let clientId: string;
  const adminToken = `adm_faults_${Date.now()}_token`;
  const recoveries: Array<{
    fault: string;
    healthy_after_ms: number;
    run_completed_after_ms: number;
    stall_ms: number;
    webhook_posts: number;
  }> = [];

  /** The newest pid the stack logged for a context. */
  function pidOf(context: string): number {
    const lines = stack
      .output()
      .split('\n')
      .filter((l) => l.includes('"service":"stack"') && l.includes(`"context":"${context}"`) && l.includes('child_pid'));
    if (lines.length === 0) throw new Error(`no pid logged for ${context}`);
    return JSON.parse(lines[lines.length - 1]).child_pid;
  }

  async function healthy(): Promise<boolean> {
    const res = await call(url, '/v1/health').catch(() => null);
    return res?.status === 200 && res.body.status === 'ok';
  }

  async function ledgerCreditsOf(jobIds: string[]): Promise<number> {
    const db = new Client({ connectionString: postgres.url });
    await db.connect();
    try {
      const [row] = (
        await db.query<{ credits: string | null }>(
          'select sum(credits) as credits from credit_ledger_entries where charge_key = any($1::text[])',
          [jobIds.map((id) => `batch-job:${id}`)],
        )
      ).rows;
      return Number(row.credits ?? 0);
    } finally {
      await db.end();
    }
  }

  beforeAll(async () => {
    buildDist();
    [nats, postgres] = await Promise.all([startPrivateNats('faults-nats'), startPrivatePostgres('faults-pg')]);
    site = await startFixtureSite();
    crawlSite = await startGeneratedSite({ articles: 150 });
    // A slow receiver: a webhook-sender killed now dies with the POST in flight.
    receiver = await startWebhookReceiver(300);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    stackEnv = {
      NATS_URL: nats.url,
      DATABASE_URL: postgres.url,
      WEBHOOK_SECRET_KEYS: TEST_WEBHOOK_SECRET_KEYS,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: adminToken,
      DEMO_TOKEN: `demo_faults_${Date.now()}_token`,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${new URL(receiver.url).port},127.0.0.1:${crawlSite.port}`,
      BROWSER_WARM: 'false',
      // Every lease at its default (issue 61): a dead job worker is noticed by its silence
      // (WorkerRoster), a lost dispatch published by the relay, and the crawl, viability and
      // webhook leases are short because they are renewed while their work runs.
      WEBHOOK_POLL_INTERVAL_MS: '200',
      WEBHOOK_RETRY_DELAYS: '1,1,1,1,1',
      STACK_RESTART_BACKOFF_MS: '300',
      LOG_LEVEL: 'warn',
    };
    stack = startProcess('stack', 'scripts/stack.js', stackEnv);
    await eventually(healthy, { timeoutMs: 120_000, maxMs: 500, what: 'the stack healthy' });
    const created = (
      await call(url, '/v1/admin/clients', { token: adminToken, json: { plan: 'enterprise', rate_limit_per_minute: 100_000 } })
    ).body;
    token = created.token;
    clientId = created.client_id;
  }, 240_000);

  afterAll(async () => {
    await stack?.stop('SIGTERM');
    await receiver?.close();
    await site?.close();
    await crawlSite?.close();
    await nats?.dispose();
    await postgres?.dispose();
    if (recoveries.length > 0)
      process.stdout.write(
        `fault injection recovery times:\n${recoveries.map((r) => `  ${r.fault.padEnd(30)} healthy after ${String(r.healthy_after_ms).padStart(6)} ms, longest stall ${String(r.stall_ms).padStart(6)} ms, completed after ${String(r.run_completed_after_ms).padStart(6)} ms, webhook POSTs ${r.webhook_posts}`).join('\n')}\n`,
      );
  }, 60_000);

  /** Calls that may fail while the fault lasts (connection refused, 5xx) are simply tried again. */
  const tolerant = (path: string, init: Parameters<typeof call>[2] = {}) => call(url, path, { token, ...init }).catch(() => null);

  /**
   * What the contexts said from a fault on (warnings and up, and the stack's restarts), so a slow
   * recovery in CI can be read afterwards: which jobs were taken back, by whom, and when.
   */
  const printStackLogSince = (faultAt: number, headline: string) => {
    const since = faultAt - 1000;
    const said = stack
      .output()
      .split('\n')
      .filter((line) => {
        const at = /"time":(\d{13})/.exec(line)?.[1] ?? Date.parse(/"time":"([^"]+)"/.exec(line)?.[1] ?? '');
        return Number(at) >= since;
      });
    process.stdout.write(`${headline}; the stack's log from the fault on:\n${said.slice(-80).join('\n')}\n`);
  };

  /**
   * The rows a run or crawl that does not finish is waiting on, read from the database itself: jobs
   * dispatched that no worker started (a lost message), jobs started whose lease holds, the crawl's
   * pages on the queue or not yet appended, and its run if it is not sealed.
   */
  const printStuckRows = async (runId: string) => {
    const db = new Client({ connectionString: postgres.url });
    await db.connect();
    try {
      const read = async (what: string, text: string) => {
        const rows = (await db.query(text, [runId])).rows;
        return `${what} (${rows.length}):\n${rows
          .slice(0, 20)
          .map((r) => `    ${JSON.stringify(r)}`)
          .join('\n')}`;
      };
      const parts = [
        await read(
          'jobs dispatched, not started',
          `select id, attempt, relayed_attempt, dispatched_at, queued_at, worker_id from jobs
           where run_id = $1 and status = 'processing' and dispatched_at is not null and started_at is null`,
        ),
        await read(
          'jobs started, not ended',
          `select id, attempt, worker_id, started_at, lease_expires_at from jobs where run_id = $1 and status = 'processing' and started_at is not null`,
        ),
        await read(
          'jobs waiting for dispatch',
          `select count(*)::int as n from jobs where run_id = $1 and status = 'processing' and dispatched_at is null`,
        ),
        await read(
          'crawl pages queued or new',
          `select key, state, depth, job_id from crawl_pages where crawl_id = $1 and state in ('queued', 'new')`,
        ),
        await read('crawl', `select state, lease_owner, lease_until, admitted from crawls where id = $1`),
        await read('run', `select status, state, total_requests, success_requests, failed_requests from runs where id = $1`),
      ];
      process.stdout.write(`stuck rows of ${runId}:\n  ${parts.join('\n  ')}\n`);
    } catch (error) {
      process.stdout.write(`stuck rows of ${runId} not read: ${String(error)}\n`);
    } finally {
      await db.end();
    }
  };

  /**
   * Watches a figure that grows while work goes on (jobs ended, pages admitted and ended), read once
   * before the fault and then every 100 ms; `stallMs` is the longest time it stood still (reads
   * that fail while a context is down count as standing still): how long the work the killed
   * process held waited before running again.
   */
  const watchProgress = async (figure: () => Promise<number | null>) => {
    let last: number | null = await figure();
    let lastChange = Date.now();
    let stallMs = 0;
    let watching = true;
    const loop = (async () => {
      while (watching) {
        const now = await figure().catch(() => null);
        const at = Date.now();
        if (now !== null && now !== last) {
          if (last !== null) stallMs = Math.max(stallMs, at - lastChange);
          last = now;
          lastChange = at;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    return {
      /** Stops watching once the work is done: the time since its last change is not a stall. */
      stop: async () => {
        watching = false;
        await loop;
        return stallMs;
      },
    };
  };

  /** Contexts the stack saw exit, in order (from its JSON log lines). */
  function exitsSoFar(): string[] {
    return stack
      .output()
      .split('\n')
      .filter((l) => l.includes('"service":"stack"') && l.includes('"exit"'))
      .map((l) => JSON.parse(l).context as string);
  }

  /**
   * `killed`: the one context this fault kills, which must be the only one to exit; none for an
   * infrastructure restart, through which no context may exit at all.
   */
  async function runThrough(
    fault: string,
    inject: () => Promise<void>,
    strikeWhen: 'mid-run' | 'webhook-in-flight' = 'mid-run',
    killed: string | null = null,
  ): Promise<void> {
    const exitsBefore = exitsSoFar().length;
    const requests = Array.from({ length: RUN_SIZE }, (_, i) => ({
      url: `${site.url}/slow?ms=${JOB_MS}&fault=${fault}&i=${i}`,
      custom_id: `${fault}-${i}`,
    }));
    const collection = (
      await call(url, '/v1/async/collections', {
        token,
        json: { name: `fault-${fault}`, callback_url: `${receiver.url}/hook?${fault}`, requests },
      })
    ).body.id;
    const run = (await call(url, `/v1/async/collections/${collection}/run`, { token, method: 'POST' })).body;
    expect(run.job_ids).toHaveLength(RUN_SIZE);
    if (strikeWhen === 'mid-run') await new Promise((r) => setTimeout(r, 800));
    // The receiver answers after 300 ms: striking on the first POST kills the sender mid-delivery.
    else
      await eventually(async () => hooksOf(receiver).some((p) => p.runId === run.run_id), {
        timeoutMs: 60_000,
        initialMs: 5,
        maxMs: 20,
        what: 'the first webhook POST',
      });
    const runPath = `/v1/async/collections/${collection}/runs/${run.run_id}`;
    const progress = await watchProgress(async () => {
      const res = await tolerant(runPath);
      return res?.status === 200 ? res.body.success_requests + res.body.failed_requests + res.body.timeout_requests : null;
    });
    const faultAt = Date.now();
    await inject();
    await eventually(healthy, { timeoutMs: 120_000, maxMs: 250, what: `healthy again after ${fault}` });
    const healthyAfter = Date.now() - faultAt;
    const done = await eventually(
      async () => {
        const res = await tolerant(runPath);
        return res?.status === 200 && res.body.status === 'completed' && res.body;
      },
      { timeoutMs: 60_000, maxMs: 500, what: `run completed after ${fault}` },
    ).catch(async (error: unknown) => {
      await progress.stop();
      printStackLogSince(faultAt, `${fault}: run not completed`);
      await printStuckRows(run.run_id);
      throw error;
    });
    const completedAfter = Date.now() - faultAt;
    const stallMs = await progress.stop();
    if (completedAfter > 10_000) {
      printStackLogSince(faultAt, `${fault}: run completed ${completedAfter} ms after the fault`);
      await printStuckRows(run.run_id);
    }
    // Issue 34: a run goes on within 10 s of any single fault, with default lease settings (the
    // run itself needs ~1 s more: 40 jobs of 400 ms at the enterprise plan's concurrency).
    expect(completedAfter).toBeLessThanOrEqual(10_000);

    expect(done.total_requests).toBe(RUN_SIZE);
    expect(done.success_requests + done.failed_requests + done.timeout_requests).toBe(RUN_SIZE);
    // Every job listed exactly once, and the listing is the run's jobs.
    const listed: string[] = [];
    let retried = 0;
    let cursor: string | null = null;
    do {
      const page: any = (await call(url, `${runPath}/jobs?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token }))
        .body;
      listed.push(...page.items.map((j: any) => j.job_public_id));
      retried += page.items.filter((j: any) => j.retries_attempted > 0).length;
      expect(page.items.every((j: any) => j.status !== 'processing')).toBe(true);
      cursor = page.cursor_next;
    } while (cursor);
    expect(listed).toHaveLength(RUN_SIZE);
    expect(new Set(listed)).toEqual(new Set(run.job_ids));
    // An infrastructure restart silences every worker at once and kills none: no job may have been
    // taken from its worker and run again (WorkerRoster believes silence only on a healthy broker).
    if (!killed) expect(retried).toBe(0);
    // The credits the run reports are the ledger's.
    expect(await ledgerCreditsOf(run.job_ids)).toBe(done.credits_charged);
    expect(done.credits_charged).toBe(
      done.success_requests + done.failed_requests - done.failed_jobs.filter((j: any) => j.status !== 'completed').length,
    );
    // One webhook: recorded as sent, under one delivery id (a sender killed mid-POST sends it again
    // under the same id once its lease — the attempt timeout plus WEBHOOK_LEASE_MARGIN_MS — has expired).
    await eventually(async () => (await tolerant(runPath))?.body.callback_status === 'sent', {
      timeoutMs: 90_000,
      what: `callback_status sent after ${fault}`,
    });
    const hooks = hooksOf(receiver).filter((p) => p.runId === run.run_id);
    expect(hooks.length).toBeGreaterThanOrEqual(1);
    expect(new Set(hooks.map((h) => h.deliveryId)).size).toBe(1);
    expect(exitsSoFar().slice(exitsBefore)).toEqual(killed ? [killed] : []);
    recoveries.push({
      fault,
      healthy_after_ms: healthyAfter,
      run_completed_after_ms: completedAfter,
      stall_ms: stallMs,
      webhook_posts: hooks.length,
    });
  }

  const killContext = (context: string) => async () => {
    process.kill(pidOf(context), 'SIGKILL');
  };

  it.each(['scrape-engine', 'batch-orchestrator', 'webhook-sender', 'billing-meter', 'result-store', 'gateway', 'proxy-approvals'])(
    'kill -9 of %s mid-run',
    async (context) => {
      await runThrough(`kill-${context}`, killContext(context), 'mid-run', context);
    },
    300_000,
  );

  /**
   * Issue 39: a crawl through a kill -9 of a context it depends on. It must end completed with every
   * page once (one job per normal form), nothing robots.txt disallows fetched, each page fetched once
   * (but the pages in a killed engine's hands, fetched again by the retry), the ledger equal to the crawl's credits, one crawl.completed delivery id,
   * and one crawl.page delivery id for each page that ran, every one of them delivered.
   */
  it.each(['site-discovery', 'scrape-engine', 'batch-orchestrator', 'result-store', 'webhook-sender'])(
    'kill -9 of %s mid-crawl',
    async (context) => {
      crawlSite.hits.clear();
      const started = (
        await call(url, '/v1/crawl', {
          token,
          json: {
            url: `${crawlSite.url}/`,
            sitemap: 'skip',
            max_depth: 3,
            max_pages: 1_000,
            callback_url: `${receiver.url}/hook?crawl-${context}`,
            page_webhooks: true,
          },
        })
      ).body;
      expect(started.state).toBe('running');
      await new Promise((r) => setTimeout(r, 800));
      const progress = await watchProgress(async () => {
        const res = await tolerant(`/v1/crawl/${started.crawl_id}`);
        return res?.status === 200 ? res.body.discovered + res.body.completed + res.body.failed : null;
      });
      const faultAt = Date.now();
      process.kill(pidOf(context), 'SIGKILL');
      await eventually(healthy, { timeoutMs: 120_000, maxMs: 250, what: `healthy again after killing ${context}` });
      let last: unknown = null;
      const done = await eventually(
        async () => {
          const res = await tolerant(`/v1/crawl/${started.crawl_id}`);
          last = res?.body ?? last;
          return res?.status === 200 && res.body.status === 'completed' && res.body;
        },
        { timeoutMs: 120_000, maxMs: 500, what: `crawl completed after killing ${context}` },
      ).catch(async (error: unknown) => {
        // A crawl that never completes leaves its state, the stack's log and the rows it waits on to read.
        await progress.stop();
        printStackLogSince(faultAt, `crawl-kill-${context}: not completed; its last state ${JSON.stringify(last)}`);
        await printStuckRows(started.crawl_id);
        throw error;
      });
      const completedAfter = Date.now() - faultAt;
      const stallMs = await progress.stop();
      if (stallMs > 10_000) {
        printStackLogSince(faultAt, `crawl-kill-${context}: stood still ${stallMs} ms`);
        await printStuckRows(started.crawl_id);
      }
      expect(done).toMatchObject({ state: 'completed', queued: 0, zero_pages_reason: null });
      const jobs = await crawlJobs(url, token, started.crawl_id);
      const keys = jobs.map((j) => normalUrl(j.url)!.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(jobs).toHaveLength(done.discovered);
      const listed = new Set(keys);
      expect(crawlSite.truth.articles.filter((u) => !listed.has(normalUrl(u)!.key))).toEqual([]);
      for (const disallowed of crawlSite.truth.disallowedPaths) expect(crawlSite.hits.get(disallowed) ?? 0).toBe(0);
      // Every URL fetched once (a redirect is admitted like a link, not followed by the fetch,
      // decision 0035), but a page retried after the engine holding it died: its own path again.
      const fetchedAgain = [...crawlSite.hits.entries()].filter(([p, n]) => p !== '/robots.txt' && n > 1);
      const refetchable = jobs.filter((j) => j.retries_attempted > 0).length;
      if (context === 'scrape-engine') expect(fetchedAgain.length).toBeLessThanOrEqual(refetchable);
      else expect(fetchedAgain).toEqual([]);
      expect(await ledgerCreditsOf(jobs.map((j) => j.job_id))).toBe(done.credits_charged);
      expect(jobs.reduce((sum, j) => sum + j.credits, 0)).toBe(done.credits_charged);
      const ran = jobs.filter((j) => j.status !== 'cancelled').map((j) => j.job_id);
      const pageHooks = () => hooksOf(receiver).filter((h) => h.runId === started.crawl_id && h.event === 'crawl.page');
      await eventually(
        async () =>
          hooksOf(receiver).some((h) => h.runId === started.crawl_id && h.event === 'crawl.completed') &&
          new Set(pageHooks().map((h) => h.jobId)).size >= ran.length,
        { timeoutMs: 90_000, what: `the crawl.completed webhook and a crawl.page per page after killing ${context}` },
      );
      const hooks = hooksOf(receiver).filter((h) => h.runId === started.crawl_id && h.event === 'crawl.completed');
      expect(new Set(hooks.map((h) => h.deliveryId)).size).toBe(1);
      // Each page that ran announced once (a page webhook may be POSTed again under its id when the sender dies mid-POST).
      expect([...new Set(pageHooks().map((h) => h.jobId))].sort()).toEqual([...ran].sort());
      const idsPerJob = new Map<string, Set<string>>();
      for (const h of pageHooks()) idsPerJob.set(h.jobId!, (idsPerJob.get(h.jobId!) ?? new Set()).add(h.deliveryId));
      expect([...idsPerJob.values()].filter((ids) => ids.size !== 1)).toEqual([]);
      expect(exitsSoFar()).toContain(context);
      recoveries.push({
        fault: `crawl-kill-${context}`,
        healthy_after_ms: 0,
        run_completed_after_ms: completedAfter,
        stall_ms: stallMs,
        webhook_posts: hooks.length,
      });
      // Issue 61: the work the killed process held runs again within 10 s (the crawl never stands still longer).
      expect(stallMs).toBeLessThanOrEqual(10_000);
    },
    300_000,
  );

  it('kill -9 of webhook-sender with a delivery in flight: delivered again under the same delivery id', async () => {
    await runThrough('kill-webhook-sender-mid-post', killContext('webhook-sender'), 'webhook-in-flight', 'webhook-sender');
  }, 300_000);

  it('kill -9 of viability-analyzer mid-analysis: the URLs it held are taken over when their leases run out, each probe charged once', async () => {
    // A client of its own: the killed process's credit holds stay until they expire (600 s), and
    // other tests here count the shared client's holds.
    const analyst = (
      await call(url, '/v1/admin/clients', { token: adminToken, json: { plan: 'enterprise', rate_limit_per_minute: 100_000 } })
    ).body.token;
    const urls = Array.from({ length: 4 }, (_, i) => `${site.url}/slow?ms=1500&viability=${i}`);
    const created = (await call(url, '/v1/async/viability-test', { token: analyst, json: { urls, depth: 'quick' } })).body;
    await new Promise((r) => setTimeout(r, 800));
    const faultAt = Date.now();
    process.kill(pidOf('viability-analyzer'), 'SIGKILL');
    const done = await eventually(
      async () => {
        const res = await tolerant(`/v1/async/viability-test/${created.run_id}`, { token: analyst });
        return res?.status === 200 && res.body.status === 'completed' && res.body;
      },
      { timeoutMs: 120_000, maxMs: 500, what: 'viability run completed after kill -9' },
    );
    recoveries.push({
      fault: 'kill-viability-analyzer',
      healthy_after_ms: 0,
      run_completed_after_ms: Date.now() - faultAt,
      stall_ms: 0,
      webhook_posts: 0,
    });
    // Issue 61, at the default lease (6 s, renewed while an analysis runs): the URLs held run again within 10 s.
    expect(Date.now() - faultAt).toBeLessThanOrEqual(12_000);
    expect(done).toMatchObject({ total_urls: 4, completed_urls: 4 });
    expect(done.results.map((r: any) => r.recommended_strategy)).toEqual(['extract_html', 'extract_html', 'extract_html', 'extract_html']);
    const db = new Client({ connectionString: postgres.url });
    await db.connect();
    try {
      const entries = (
        await db.query<{ charge_key: string; credits: number }>(
          "select charge_key, credits from credit_ledger_entries where details->>'viability_run_id' = $1",
          [created.run_id],
        )
      ).rows;
      // The killed process held URLs: they were analysed again under a new attempt.
      const [{ retried }] = (
        await db.query<{ retried: number }>('select count(*)::int as retried from viability_urls where run_id = $1 and attempts > 1', [
          created.run_id,
        ])
      ).rows;
      expect(retried).toBeGreaterThanOrEqual(1);
      // Two probes a URL at quick depth, never twice though a killed worker's probes ran again.
      expect(entries).toHaveLength(8);
      expect(new Set(entries.map((e) => e.charge_key)).size).toBe(8);
      const shown = done.results
        .flatMap((r: any) => [r.tests.simple_request, r.tests.extract_html])
        .reduce((sum: number, t: any) => sum + t.credits, 0);
      expect(shown).toBe(entries.reduce((sum, e) => sum + e.credits, 0));
    } finally {
      await db.end();
    }
    expect(exitsSoFar()).toContain('viability-analyzer');
  }, 300_000);

  /** A crash of the server (kill -9), one second down, then the same server back on its data. */
  const restart = (server: () => PrivateServer) => async () => {
    await server().kill();
    await new Promise((r) => setTimeout(r, 1000));
    await server().start();
  };

  it('NATS restart mid-run', async () => {
    await runThrough(
      'nats-restart',
      restart(() => nats),
    );
  }, 300_000);

  it('Postgres restart mid-run', async () => {
    await runThrough(
      'postgres-restart',
      restart(() => postgres),
    );
  }, 300_000);

  /**
   * A monitor's tick through `fault`, struck 800 ms into it: one tick, every page compared and
   * charged once, one webhook, reported within 10 s of the fault (issue 61's bound).
   */
  async function monitorTickThrough(name: string, fault: () => Promise<void>): Promise<void> {
    const urls = Array.from({ length: RUN_SIZE }, (_, i) => `${site.url}/slow?ms=${JOB_MS}&tick=${name}&i=${i}`);
    const monitor = (
      await call(url, '/v1/monitors', {
        token,
        json: { urls, schedule: { interval_seconds: 86_400 }, webhook_url: `${receiver.url}/hook?monitor-${name}` },
      })
    ).body;
    expect(monitor.state).toBe('active');
    await new Promise((r) => setTimeout(r, 800));
    const faultAt = Date.now();
    await fault();
    await eventually(healthy, { timeoutMs: 120_000, maxMs: 250, what: `healthy again after ${name}` });
    const ticks = async () => ((await tolerant(`/v1/monitors/${monitor.id}/ticks`))?.body?.ticks ?? []) as Array<Record<string, any>>;
    await eventually(async () => (await ticks())[0]?.changes != null, {
      timeoutMs: 120_000,
      maxMs: 500,
      what: `the tick reported after ${name}`,
    });
    const reportedAfter = Date.now() - faultAt;
    const [tick, ...others] = await ticks();
    expect(others).toEqual([]);
    expect(tick).toMatchObject({ status: 'completed', pages: RUN_SIZE, changes: RUN_SIZE, credits_charged: RUN_SIZE });
    const changes = (await call(url, `/v1/monitors/${monitor.id}/changes?limit=1000`, { token })).body.changes as Array<{
      url: string;
      change_status: string;
      job_id: string;
    }>;
    expect(changes.map((c) => c.url).sort()).toEqual([...urls].sort());
    expect(new Set(changes.map((c) => c.change_status))).toEqual(new Set(['new']));
    expect(await ledgerCreditsOf(changes.map((c) => c.job_id))).toBe(RUN_SIZE);
    await eventually(async () => hooksOf(receiver).some((h) => h.runId === tick.tick_id), {
      timeoutMs: 60_000,
      what: `the tick's webhook after ${name}`,
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      new Set(
        hooksOf(receiver)
          .filter((h) => h.runId === tick.tick_id)
          .map((h) => h.deliveryId),
      ).size,
    ).toBe(1);
    recoveries.push({
      fault: `monitor-tick-${name}`,
      healthy_after_ms: 0,
      run_completed_after_ms: reportedAfter,
      stall_ms: 0,
      webhook_posts: 1,
    });
    expect(reportedAfter).toBeLessThanOrEqual(10_000);
    await call(url, `/v1/monitors/${monitor.id}`, { token, method: 'DELETE' });
  }

  it.each(['batch-orchestrator', 'scrape-engine', 'result-store', 'Postgres'])(
    'a monitor tick with %s killed mid-tick: one tick, every page compared and charged once, one webhook',
    (target) =>
      monitorTickThrough(target, async () => {
        if (target === 'Postgres') await restart(() => postgres)();
        else process.kill(pidOf(target), 'SIGKILL');
      }),
    300_000,
  );

  it('a monitor tick with two orchestrators, one killed (-9) mid-tick and never back: the other carries the tick, once', async () => {
    // A second replica beside the stack's, on the same NATS and Postgres: both pass the ticker each
    // second and serve claims and completions from the same queue group.
    const second = startService('batch-orchestrator', { ...stackEnv, LOG_LEVEL: 'info' });
    try {
      await eventually(async () => second.output().includes('"msg":"batch-orchestrator started"'), {
        timeoutMs: 60_000,
        what: 'the second orchestrator started',
      });
      await monitorTickThrough('second-orchestrator', async () => {
        second.child.kill('SIGKILL');
        await second.exited;
      });
    } finally {
      await second.stop('SIGKILL');
    }
  }, 300_000);

  /** Every operation of the API description, with any id for its path parameters. */
  function everyOperation(): Array<{ method: string; path: string; authenticated: boolean }> {
    const document = JSON.parse(fs.readFileSync(path.join(__dirname, '../../sdk/openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
      security?: unknown[];
    };
    return Object.entries(document.paths).flatMap(([route, ops]) =>
      Object.entries(ops)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, op]) => ({
          method: method.toUpperCase(),
          path: route.replace(/\{[^}]+\}/g, (name) => (name === '{country_code}' ? 'DE' : '00000000-0000-4000-8000-000000000000')),
          authenticated: (op.security ?? document.security ?? []).length > 0,
        })),
    );
  }

  /** Each operation once, timed, while `server` is down; then the server is started again. */
  async function walkWhileDown(server: PrivateServer, label: string) {
    const operations = everyOperation();
    expect(operations.length).toBeGreaterThan(50);
    await server.kill();
    const answers: Array<{
      op: string;
      authenticated: boolean;
      status: number;
      retryAfter: string | null;
      errorCode: unknown;
      ms: number;
    }> = [];
    try {
      for (const op of operations) {
        const started = Date.now();
        const res = await call(url, op.path, {
          token,
          method: op.method,
          ...(op.method === 'POST' || op.method === 'PUT' ? { json: {} } : {}),
        });
        answers.push({
          op: `${op.method} ${op.path}`,
          authenticated: op.authenticated,
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          errorCode: (res.body as { error_code?: unknown } | null)?.error_code ?? null,
          ms: Date.now() - started,
        });
      }
    } finally {
      await server.start();
    }
    process.stdout.write(
      `${label} down: ${answers.length} operations, statuses ${JSON.stringify(countBy(answers.map((a) => a.status)))}, slowest ${Math.max(...answers.map((a) => a.ms))} ms\n`,
    );
    expect(answers.filter((a) => a.status === 500)).toEqual([]);
    expect(answers.filter((a) => a.ms >= 1000)).toEqual([]);
    // Any 5xx is an outage told as one: 503 with Retry-After.
    expect(answers.filter((a) => a.status >= 500 && !(a.status === 503 && Number(a.retryAfter) >= 1))).toEqual([]);
    await eventually(healthy, { timeoutMs: 60_000, what: `healthy after the ${label} outage` });
    return answers;
  }

  it('Postgres down: every operation of the API answers within 1 s, never 500; every authenticated one 503 with Retry-After', async () => {
    await eventually(healthy, { timeoutMs: 60_000, what: 'healthy before the outage' });
    const answers = await walkWhileDown(postgres, 'Postgres');
    // Nothing authenticated gets past the client lookup while the database is away.
    expect(
      answers
        .filter((a) => a.authenticated && !(a.status === 503 && a.errorCode === 'service_unavailable'))
        .map((a) => `${a.op} ${a.status}`),
    ).toEqual([]);
  }, 120_000);

  it('NATS down: every operation of the API answers within 1 s, never 500; what needs another context 503 with Retry-After', async () => {
    await eventually(healthy, { timeoutMs: 60_000, what: 'healthy before the outage' });
    const answers = await walkWhileDown(nats, 'NATS');
    // The gateway's own reads (client, plans) still answer; calls into other contexts are outages.
    expect(answers.some((a) => a.status === 503)).toBe(true);
  }, 120_000);

  it('a sync scrape sent just before NATS dies fetches its target at most once', async () => {
    await eventually(healthy, { timeoutMs: 60_000, what: 'healthy before the sync outage' });
    const marker = `nats-outage-${Date.now()}`;
    // A client of its own: a hold whose release meets the outage stays until its TTL, and the
    // next test counts the shared client's holds.
    const own = (await call(url, '/v1/admin/clients', { token: adminToken, json: { plan: 'enterprise', rate_limit_per_minute: 100_000 } }))
      .body.token as string;
    const started = Date.now();
    const pending = call(url, '/v1/sync/scrape', { token: own, json: { url: `${site.url}/slow?ms=1500&${marker}` } });
    // The engine has it (fetching) when the broker dies; it comes back a second later.
    await eventually(async () => site.requests.some((r) => r.includes(marker)), {
      timeoutMs: 10_000,
      initialMs: 5,
      maxMs: 10,
      what: 'the fetch',
    });
    await nats.kill();
    await new Promise((r) => setTimeout(r, 1000));
    await nats.start();
    const res = await pending;
    const fetches = site.requests.filter((r) => r.includes(marker)).length;
    process.stdout.write(
      `sync scrape across a NATS outage: ${res.status} ${res.body.error_code ?? ''} after ${Date.now() - started} ms, target fetched ${fetches} time(s), charged ${res.headers.get('x-credits-charged')}\n`,
    );
    expect(fetches).toBe(1);
    if (res.status === 200) expect(res.headers.get('x-credits-charged')).toBe('1');
    else {
      expect(res.status).toBe(503);
      expect(res.headers.get('x-credits-charged')).toBe('0');
    }
    await eventually(healthy, { timeoutMs: 60_000, what: 'healthy after the sync outage' });
  }, 120_000);

  it('answers a sync scrape whose scrape-engine is killed within 5 s: 503, uncharged, hold released', async () => {
    await eventually(healthy, { timeoutMs: 60_000, what: 'healthy before the sync fault' });
    const before = (await call(url, '/v1/plans', { token })).headers.get('x-quota-used');
    const started = Date.now();
    const pending = call(url, '/v1/sync/scrape', { token, json: { url: `${site.url}/slow?ms=30000&sync-fault` } });
    // Kill once the engine has the request (its beat names it within a second).
    await new Promise((r) => setTimeout(r, 1500));
    const killedAt = Date.now();
    process.kill(pidOf('scrape-engine'), 'SIGKILL');
    const res = await pending;
    const answeredAfter = Date.now() - killedAt;
    process.stdout.write(
      `sync scrape: engine killed ${killedAt - started} ms in, client answered ${answeredAfter} ms after the kill (${res.status} ${res.body.error_code})\n`,
    );
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error_code: 'scrape_engine_lost', detail: expect.stringMatching(/Nothing was charged/) });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(answeredAfter).toBeLessThan(5000);
    // The hold goes back to the gateway's credit lease at once (nothing used), and the lease itself
    // back to the month once idle (CREDIT_LEASE_IDLE_MS, 2 s; decision 0013), not at its expiry.
    expect((await call(url, '/v1/plans', { token })).headers.get('x-quota-used')).toBe(before);
    const db = new Client({ connectionString: postgres.url });
    await db.connect();
    try {
      const reserved = async () =>
        (await db.query('select count(*)::int as n from credit_reservations where client_id = $1', [clientId])).rows[0].n === 0;
      await eventually(reserved, { timeoutMs: 10_000, what: 'no credits reserved for the client' });
    } finally {
      await db.end();
    }
    expect((await call(url, '/v1/plans', { token })).headers.get('x-quota-used')).toBe(before);
  });
});

function countBy(values: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
