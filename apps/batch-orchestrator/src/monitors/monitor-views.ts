import type { MonitorView } from '@lib/contracts';
import type { MonitorRow } from '../persistence/monitors.store';

export function monitorViewOf(row: MonitorRow): MonitorView {
  return {
    id: row.id,
    name: row.name,
    state: row.state,
    urls: row.urls,
    crawl: (row.crawl as MonitorView['crawl']) ?? null,
    schedule: row.schedule,
    scrape: row.scrape,
    extract: row.extract,
    ignore: row.ignore,
    webhook_url: row.webhookUrl,
    notify: row.notify,
    next_tick_at: row.state === 'active' && row.nextTickAt ? row.nextTickAt.toISOString() : null,
    last_tick_at: row.lastTickAt?.toISOString() ?? null,
    running_tick_id: row.runningTickId,
    ticks: row.ticks,
    created_at: row.createdAt.toISOString(),
  };
}
