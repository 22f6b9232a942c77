import {
  CRAWL_LIMITS,
  CreateMonitorCommand,
  ListMonitorsQuery,
  type MonitorCrawlScope,
  MonitorReference,
  MonitorTickView,
  MonitorTransitionCommand,
  MonitorView,
  nextTickAfter,
} from '@lib/contracts';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InvalidStateError, MonitorLimitReachedError, MonitorNotFoundError } from '../batch-orchestrator.errors';
import { CollectionItemsValidator } from '../collections/collection-items.validator';
import { MonitorStore } from '../persistence/monitors.store';
import { MonitorTicker } from './monitor-ticker';
import { monitorViewOf } from './monitor-views';

/**
 * A client's monitors (issue 63): created with the plan's limits checked under the client's lock,
 * paused, resumed, deleted — each taking effect before the monitor's next tick, since the tick is
 * taken under the same row lock and reads the state it leaves — and ticked now on demand.
 */
@Injectable()
export class Monitors {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly store: MonitorStore,
    private readonly ticker: MonitorTicker,
    private readonly targets: CollectionItemsValidator,
  ) {}

  async create(command: CreateMonitorCommand): Promise<MonitorView> {
    const now = this.clock.now();
    const id = randomUUID();
    const request = command.request;
    // The same SSRF guard as every scrape (each tick's fetch is vetted again): refused here, with a clear 422, rather than failing every tick.
    const urls = [...new Set(request.urls ?? [])];
    await this.targets.vetAll(request.crawl ? [request.crawl.url, ...(request.crawl.start_urls ?? [])] : urls);
    await this.targets.vetCallback(request.webhook_url ?? null);
    await this.db.sql.transaction(async (tx) => {
      const count = await this.store.countOf(tx, command.client_id);
      if (count >= command.max_monitors)
        throw new MonitorLimitReachedError(`This plan allows ${command.max_monitors} monitors; delete one or upgrade the plan.`, {
          limit: command.max_monitors,
        });
      const schedule = {
        ...(request.schedule.interval_seconds !== undefined ? { interval_seconds: request.schedule.interval_seconds } : {}),
        ...(request.schedule.cron !== undefined ? { cron: request.schedule.cron, timezone: request.schedule.timezone ?? 'UTC' } : {}),
      };
      await this.store.insert(tx, {
        id,
        clientId: command.client_id,
        name: request.name ?? null,
        state: 'active',
        urls,
        crawl: request.crawl ? crawlScopeOf(request.crawl, command.max_pages) : null,
        schedule,
        scrape: request.scrape ?? {},
        extract: request.extract ?? null,
        ignore: { selectors: request.ignore?.selectors ?? [], patterns: request.ignore?.patterns ?? [] },
        webhookUrl: request.webhook_url ?? null,
        notify: request.notify ?? 'changes',
        maxConcurrency: command.max_concurrency,
        monthlyCredits: command.monthly_credits,
        // The first tick is now: the baseline every later tick compares with.
        nextTickAt: now,
        createdAt: now,
      });
    });
    this.ticker.wake();
    return this.get({ client_id: command.client_id, monitor_id: id });
  }

  async get(reference: MonitorReference): Promise<MonitorView> {
    const row = await this.store.find(reference.client_id, reference.monitor_id);
    if (!row) throw new MonitorNotFoundError(`Monitor ${reference.monitor_id} not found.`);
    return monitorViewOf(row);
  }

  async list(query: ListMonitorsQuery): Promise<{ monitors: MonitorView[] }> {
    return { monitors: (await this.store.listOf(query.client_id)).map(monitorViewOf) };
  }

  async ticks(reference: MonitorReference): Promise<{ ticks: MonitorTickView[] }> {
    // Read side by side; a monitor that is not the client's fails the pair, its ticks never answered.
    const [, ticks] = await Promise.all([this.get(reference), this.store.ticksOf(reference.monitor_id, 100)]);
    return { ticks };
  }

  /** pause, resume, delete, or tick: due now (the next free moment, once a tick in progress is reported). */
  async transition(command: MonitorTransitionCommand): Promise<MonitorView | { deleted: true }> {
    const now = this.clock.now();
    const deleted = await this.db.sql.transaction(async (tx) => {
      const monitor = await this.store.lock(tx, command.client_id, command.monitor_id);
      if (!monitor) throw new MonitorNotFoundError(`Monitor ${command.monitor_id} not found.`);
      switch (command.action) {
        case 'delete':
          await this.store.delete(tx, monitor.id);
          return true;
        case 'pause':
          await this.store.setState(tx, monitor.id, 'paused', monitor.nextTickAt);
          return false;
        case 'resume':
          // A resumed monitor ticks at its schedule's next time, not at once for every tick it skipped.
          if (monitor.state === 'paused') await this.store.setState(tx, monitor.id, 'active', nextTickAfter(monitor.schedule, now));
          return false;
        case 'tick':
          if (monitor.state === 'paused')
            throw new InvalidStateError(`Monitor ${monitor.id} is paused: resume it to tick.`, { state: monitor.state });
          await this.store.setState(tx, monitor.id, monitor.state, now);
          return false;
      }
    });
    if (deleted) return { deleted: true };
    if (command.action === 'tick') this.ticker.wake();
    return this.get(command);
  }
}

/** The scope as stored: what the client gave, with max_pages at most the plan's pages per monitor (and that by default). */
function crawlScopeOf(scope: MonitorCrawlScope, maxPages: number): Record<string, unknown> {
  const most = Math.min(maxPages, CRAWL_LIMITS.pages.max);
  return { ...scope, max_pages: Math.min(scope.max_pages ?? most, most) };
}
