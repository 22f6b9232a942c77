import { CONTENT_RULES_VERSION, OPS_SUBJECTS, type PageChangeView, SUBJECTS } from '@lib/contracts';
import { RemoteAppError } from '@lib/errors';
import type { MessageBus, OpsEventPublisher } from '@lib/messaging';
import type { DatabaseConnection } from '@lib/persistence';
import { randomUUID } from 'node:crypto';
import { MovableClock } from '../../../../test/support/movable-clock';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import type { JobDispatcher } from '../dispatch/job-dispatcher';
import type { RunOpsEvents } from '../job-lifecycle/run-ops-events';
import { JobStore } from '../persistence/jobs.store';
import { MonitorStore } from '../persistence/monitors.store';
import { RunStore } from '../persistence/runs.store';
import { MonitorTicker } from './monitor-ticker';

/**
 * Scheduling a monitor's ticks (decision 0038): one tick per due schedule whichever replicas pass at
 * once, one catch-up tick after an outage, no tick for a paused or deleted monitor nor while its last
 * tick runs, and a completed tick reported once, with a webhook only when it changed something.
 */
describe.each(DATABASE_BACKENDS)('MonitorTicker (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  let monitors: MonitorStore;
  const clock = new MovableClock('2026-12-04T10:00:00Z');
  let changesOfTick: (runId: string) => PageChangeView[] = () => [];
  /** Crawls asked of site-discovery (crawl-scope ticks), and how it answers them. */
  const crawlStarts: Array<Record<string, unknown>> = [];
  let startCrawl: () => unknown = () => ({});
  /** What site-discovery says of a crawl when asked (crawl-scope ticks' reports), and the unseen pages recorded. */
  let crawlView: () => unknown = () => ({});
  const recordedUnseen: string[] = [];
  const published: Array<{ subject: string; event: Record<string, unknown> }> = [];

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'monitor-ticker'));
    monitors = new MonitorStore(db);
  });
  afterAll(async () => close());

  /** A replica's ticker: its own instance over the same database, as another process's would be. */
  function replica(): MonitorTicker {
    const bus = {
      request: async (subject: string, query: { run_id: string; crawl_id?: string }) => {
        if (subject === SUBJECTS.discovery.crawlGet) return crawlView();
        if (subject === SUBJECTS.pageVersions.recordUnseen) {
          recordedUnseen.push(query.run_id);
          return { removed: 0 };
        }
        if (subject !== SUBJECTS.discovery.crawlCreate) return { changes: changesOfTick(query.run_id) };
        crawlStarts.push(query);
        return startCrawl();
      },
    };
    return new MonitorTicker(
      db,
      clock,
      bus as unknown as MessageBus,
      monitors,
      new RunStore(db),
      new JobStore(db),
      { requestDispatch: () => undefined } as unknown as JobDispatcher,
      { runStarted: () => undefined } as unknown as RunOpsEvents,
      { publish: (subject: string, event: Record<string, unknown>) => published.push({ subject, event }) } as unknown as OpsEventPublisher,
    );
  }

  async function monitor(
    clientId: string,
    schedule: Record<string, unknown>,
    nextTickAt: Date,
    extra: Record<string, unknown> = {},
  ): Promise<string> {
    const id = randomUUID();
    await db.sql.transaction((tx) =>
      monitors.insert(tx, {
        id,
        clientId,
        name: null,
        state: 'active',
        urls: ['https://example.com/a', 'https://example.com/b'],
        crawl: null,
        schedule,
        scrape: {},
        extract: null,
        ignore: { selectors: [], patterns: [] },
        webhookUrl: null,
        notify: 'changes',
        maxConcurrency: 5,
        monthlyCredits: null,
        nextTickAt,
        createdAt: clock.now(),
        ...extra,
      }),
    );
    return id;
  }

  const ticksOf = async (monitorId: string) =>
    (await db.sql.query<{ n: number }>('select count(*)::int n from monitor_ticks where monitor_id = $1', [monitorId]))[0].n;
  const completeTicksOf = (monitorId: string) =>
    db.sql.query(
      "update runs set status = 'completed', state = 'completed' where id in (select run_id from monitor_ticks where monitor_id = $1)",
      [monitorId],
    );

  /** A crawl-scope tick's run as site-discovery leaves it once sealed: completed, every page read. */
  const sealedCrawlRun = async (runId: string, clientId: string) => {
    await db.sql.transaction((tx) =>
      new RunStore(db).insert(tx, {
        id: runId,
        kind: 'crawl',
        state: 'running',
        clientId,
        totalRequests: 1,
        maxConcurrency: 5,
        monthlyCredits: null,
        callbackUrl: null,
        successCriterion: { version: CONTENT_RULES_VERSION, rules: [] },
        createdAt: clock.now(),
      }),
    );
    await db.sql.query("update runs set status = 'completed', state = 'completed', completed_at = $2 where id = $1", [runId, clock.now()]);
  };

  it('takes each due monitor once whichever replicas pass at the same time, with its run and one job per URL', async () => {
    const clientId = `ticks-${randomUUID().slice(0, 8)}`;
    const ids = await Promise.all(Array.from({ length: 12 }, () => monitor(clientId, { interval_seconds: 3600 }, clock.now())));
    const [a, b, c] = [replica(), replica(), replica()];
    await Promise.all([a.pass(), b.pass(), c.pass(), a.pass(), b.pass()]);
    for (const id of ids) expect(await ticksOf(id)).toBe(1);
    const [runs] = await db.sql.query<{ runs: number; jobs: number }>(
      `select count(distinct r.id)::int runs, count(j.id)::int jobs from runs r join jobs j on j.run_id = r.id
       where r.client_id = $1 and r.kind = 'monitor'`,
      [clientId],
    );
    expect(runs).toEqual({ runs: 12, jobs: 24 });
    const row = await monitors.find(clientId, ids[0]);
    expect(row?.nextTickAt?.toISOString()).toBe('2026-12-04T11:00:00.000Z');
    expect(row?.runningTickId).not.toBeNull();
  });

  it('after an outage ticks once, not once per missed time, and goes on from now (interval and cron)', async () => {
    const clientId = `outage-${randomUUID().slice(0, 8)}`;
    const hourly = await monitor(clientId, { interval_seconds: 3600 }, new Date(clock.now().getTime() - 10 * 3_600_000));
    const cron = await monitor(clientId, { cron: '*/15 * * * *', timezone: 'UTC' }, new Date(clock.now().getTime() - 5 * 3_600_000));
    clock.advance(7 * 60_000);
    await replica().pass();
    await replica().pass();
    expect([await ticksOf(hourly), await ticksOf(cron)]).toEqual([1, 1]);
    expect((await monitors.find(clientId, hourly))?.nextTickAt?.getTime()).toBe(clock.now().getTime() + 3_600_000);
    expect((await monitors.find(clientId, cron))?.nextTickAt?.toISOString()).toBe('2026-12-04T10:15:00.000Z');
  });

  it('does not tick a paused or deleted monitor, nor one whose last tick is not reported yet', async () => {
    const clientId = `paused-${randomUUID().slice(0, 8)}`;
    const paused = await monitor(clientId, { interval_seconds: 600 }, clock.now(), { state: 'paused' });
    const deleted = await monitor(clientId, { interval_seconds: 600 }, clock.now());
    await db.sql.transaction((tx) => monitors.delete(tx, deleted));
    const busy = await monitor(clientId, { interval_seconds: 600 }, clock.now());
    const ticker = replica();
    await ticker.pass();
    expect([await ticksOf(paused), await ticksOf(deleted), await ticksOf(busy)]).toEqual([0, 0, 1]);
    clock.advance(30 * 60_000);
    await ticker.pass();
    expect(await ticksOf(busy)).toBe(1);
    await completeTicksOf(busy);
    await ticker.pass(); // reports the tick: the monitor is free again, and due
    await ticker.pass();
    expect(await ticksOf(busy)).toBe(2);
  });

  it('reports a completed tick once across replicas: its webhook only when a page changed, unless notify=always', async () => {
    const clientId = `report-${randomUUID().slice(0, 8)}`;
    const changed = await monitor(clientId, { interval_seconds: 3600 }, clock.now(), { webhookUrl: 'https://hooks.example/changed' });
    const quiet = await monitor(clientId, { interval_seconds: 3600 }, clock.now(), { webhookUrl: 'https://hooks.example/quiet' });
    const always = await monitor(clientId, { interval_seconds: 3600 }, clock.now(), {
      webhookUrl: 'https://hooks.example/always',
      notify: 'always',
    });
    await replica().pass();
    const runOf = async (id: string) =>
      (await db.sql.query<{ run_id: string }>('select run_id from monitor_ticks where monitor_id = $1', [id]))[0].run_id;
    const changedRun = await runOf(changed);
    changesOfTick = (runId) =>
      runId === changedRun
        ? [
            {
              url: 'https://example.com/a',
              change_status: 'changed',
              tick_id: runId,
              job_id: randomUUID(),
              detected_at: clock.now().toISOString(),
              previous_at: null,
            },
          ]
        : [];
    for (const id of [changed, quiet, always]) await completeTicksOf(id);
    await Promise.all([replica().pass(), replica().pass(), replica().pass()]);
    const hooks = await db.sql.query<{ callback_url: string; payload: { changes: unknown[]; event: string } }>(
      'select callback_url, payload from webhook_outbox where client_id = $1 order by callback_url',
      [clientId],
    );
    expect(hooks.map((h) => [h.callback_url, h.payload.event, h.payload.changes.length])).toEqual([
      ['https://hooks.example/always', 'monitor.changed', 0],
      ['https://hooks.example/changed', 'monitor.changed', 1],
    ]);
    const reported = await db.sql.query<{ changes: number }>(
      'select changes from monitor_ticks where client_id = $1 and reported_at is not null order by changes desc',
      [clientId],
    );
    expect(reported.map((r) => r.changes)).toEqual([1, 0, 0]);
    // One ops event per tick reported, however many replicas passed.
    const events = published.filter((p) => p.subject === OPS_SUBJECTS.monitorTickReported && p.event.client_id === clientId);
    expect(events.map((e) => [e.event.monitor_id, e.event.changes, e.event.webhook]).sort()).toEqual(
      [
        [always, { new: 0, changed: 0, removed: 0 }, true],
        [changed, { new: 0, changed: 1, removed: 0 }, true],
        [quiet, { new: 0, changed: 0, removed: 0 }, false],
      ].sort(),
    );
  });

  it('starts a crawl-scope tick’s crawl under the tick’s id, again when that start was lost, and ends a refused one with its reason', async () => {
    const clientId = `crawl-${randomUUID().slice(0, 8)}`;
    const id = await monitor(clientId, { interval_seconds: 3600 }, clock.now(), {
      urls: [],
      crawl: { url: 'https://example.com/', max_pages: 10 },
    });
    crawlStarts.length = 0;
    // The first answer is lost (site-discovery away): no run comes of it.
    startCrawl = () => {
      throw new Error('transport timeout');
    };
    await replica().pass();
    const [{ run_id: tickId }] = await db.sql.query<{ run_id: string }>('select run_id from monitor_ticks where monitor_id = $1', [id]);
    expect(crawlStarts).toEqual([
      expect.objectContaining({
        client_id: clientId,
        crawl_id: tickId,
        robots_override_allowed: false,
        request: expect.objectContaining({
          url: 'https://example.com/',
          max_pages: 10,
          scrape: expect.objectContaining({
            format: 'html',
            monitor_page: { monitor_id: id, run_id: tickId, ignore: expect.anything(), crawl_scope: true },
          }),
        }),
      }),
    ]);
    // The tick has no run of its own: its crawl's run is opened by site-discovery under the tick's id.
    expect(await db.sql.query('select id from runs where id = $1', [tickId])).toEqual([]);

    // Within the retry delay nobody starts it again; past it, any replica does (a start under the same id is idempotent).
    clock.advance(10_000);
    await replica().pass();
    expect(crawlStarts).toHaveLength(1);
    clock.advance(11_000);
    await replica().pass();
    expect(crawlStarts.map((start) => start.crawl_id)).toEqual([tickId, tickId]);

    // Refused for good: the tick ends with the reason and no change, and the monitor may tick again.
    startCrawl = () => {
      throw new RemoteAppError({ code: 'target.blocked', message: 'example.com resolves to a private address' });
    };
    clock.advance(21_000);
    await replica().pass();
    const [tick] = await monitors.ticksOf(id, 10);
    expect(tick).toMatchObject({
      tick_id: tickId,
      status: 'completed',
      pages: 0,
      changes: 0,
      error: 'example.com resolves to a private address',
    });
    expect((await monitors.find(clientId, id))?.runningTickId).toBeNull();
    startCrawl = () => ({});
  });

  it('reports a crawl-scope tick once its crawl has recorded its end, not while only its run has (removals need the whole crawl)', async () => {
    const clientId = `settle-${randomUUID().slice(0, 8)}`;
    const id = await monitor(clientId, { interval_seconds: 3600 }, clock.now(), { urls: [], crawl: { url: 'https://example.com/' } });
    await replica().pass();
    const [{ run_id: tickId }] = await db.sql.query<{ run_id: string }>('select run_id from monitor_ticks where monitor_id = $1', [id]);
    await sealedCrawlRun(tickId, clientId);
    const crawl = (status: 'in_progress' | 'completed') => ({
      crawl_id: tickId,
      state: status === 'completed' ? 'completed' : 'running',
      status,
      zero_pages_reason: null,
      skipped: { over_limit: 0 },
    });
    const reportedAt = async (runId = tickId) =>
      (await db.sql.query<{ reported_at: Date | null }>('select reported_at from monitor_ticks where run_id = $1', [runId]))[0].reported_at;

    // Its crawl has not recorded its end yet (sealed, then recorded): the tick waits rather than deciding nothing is gone.
    crawlView = () => crawl('in_progress');
    await replica().pass();
    expect([await reportedAt(), recordedUnseen.includes(tickId)]).toEqual([null, false]);

    crawlView = () => crawl('completed');
    await replica().pass();
    expect(await reportedAt()).not.toBeNull();
    expect(recordedUnseen.filter((run) => run === tickId)).toHaveLength(1);

    // A crawl that never records its end (site-discovery lost it) holds its tick back for a bounded time, then is reported without removals.
    const next = await monitor(clientId, { interval_seconds: 3600 }, clock.now(), { urls: [], crawl: { url: 'https://example.com/b' } });
    await replica().pass();
    const [{ run_id: stuckId }] = await db.sql.query<{ run_id: string }>('select run_id from monitor_ticks where monitor_id = $1', [next]);
    await sealedCrawlRun(stuckId, clientId);
    crawlView = () => crawl('in_progress');
    clock.advance(60_000);
    await replica().pass();
    expect(await reportedAt(stuckId)).toBeNull();
    clock.advance(15 * 60_000);
    await replica().pass();
    expect(await reportedAt(stuckId)).not.toBeNull();
    expect((await monitors.ticksOf(next, 1))[0]).toMatchObject({ status: 'completed', changes: 0 });
    expect(recordedUnseen).not.toContain(stuckId);
    crawlView = () => ({});
  });
});
