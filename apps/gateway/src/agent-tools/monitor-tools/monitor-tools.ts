import { CreateMonitorRequest, type JobResultBody, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { plainToInstance } from 'class-transformer';
import type { AdmittedCall } from '../../admission/caller.decorator';
import { MonitorCalls } from '../../monitors/monitor-calls';
import { argumentsOf, CreateMonitorArguments, MonitorChangesArguments } from '../tool-arguments';
import { invalidArguments } from '../tool-results';
import { conflictingBudgets, cutToShare, shareOf } from '../tool-window';
import { UntrustedContentFence } from '../untrusted-content';

/** Most characters of diff a monitor_changes answer carries by default, shared by the pages shown (max_chars or max_tokens set another). */
export const DIFF_BUDGET = 20_000;

/** create_monitor and monitor_changes: the REST monitors on the caller's admission (its plan's limits, the SSRF guard). */
@Injectable()
export class MonitorTools {
  constructor(
    private readonly monitors: MonitorCalls,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async createMonitor(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const parsed = await argumentsOf(CreateMonitorArguments, raw);
    if (!parsed.ok) return invalidArguments('create_monitor', parsed.problems);
    const args = parsed.value;
    if (args.urls !== undefined && args.crawl !== undefined)
      return invalidArguments('create_monitor', [{ loc: ['crawl'], msg: 'give urls or crawl, not both.', type: 'value_error' }]);
    const request = plainToInstance(CreateMonitorRequest, {
      name: args.name,
      ...(args.crawl ? { crawl: args.crawl } : { urls: args.urls }),
      schedule: { interval_seconds: args.interval_seconds },
      ...(args.browser ? { scrape: { browser: true } } : {}),
      ...(args.extract ? { extract: args.extract } : {}),
      ignore: { selectors: args.ignore_selectors ?? [], patterns: args.ignore_patterns ?? [] },
    });
    const monitor = await this.monitors.create(request, admission);
    return {
      content: [
        {
          type: 'text',
          text: `Monitor ${monitor.id} watches ${monitor.crawl ? `the pages a crawl of ${monitor.crawl.url} finds (at most ${monitor.crawl.max_pages})` : `${monitor.urls.length} pages`} every ${args.interval_seconds} s; its first tick runs now. Call monitor_changes with monitor_id "${monitor.id}" to read what changed.`,
        },
      ],
      structuredContent: { monitor },
    };
  }

  async monitorChanges(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const parsed = await argumentsOf(MonitorChangesArguments, raw);
    if (!parsed.ok) return invalidArguments('monitor_changes', parsed.problems);
    const conflict = conflictingBudgets(parsed.value);
    if (conflict.length > 0) return invalidArguments('monitor_changes', conflict);
    const monitorId = parsed.value.monitor_id.toLowerCase();
    const monitor = await this.monitors.get(monitorId, admission);
    const { changes } = await this.monitors.changes(monitorId, parsed.value.limit ?? 10, admission);
    const parts: string[] = [];
    const changed = changes.filter((c) => c.change_status === 'changed');
    const share = shareOf(parsed.value, changed.length, DIFF_BUDGET);
    for (const change of changed) {
      // A `changed` page always has its job (only a removal may have none).
      if (change.job_id === null) continue;
      const reply = await this.bus.request(
        SUBJECTS.jobs.data,
        { client_id: admission.client.id, job_id: change.job_id },
        { correlationId: admission.requestId },
      );
      if (!reply.found) continue;
      const body = (await this.bus.unpack(reply.result)) as JobResultBody & { change?: { diff?: string | null } };
      parts.push(`## ${change.url}\n${await cutToShare(body.change?.diff ?? '', share)}`);
    }
    const lines = [
      `Monitor ${monitor.id} (${monitor.state}): ${monitor.ticks} ticks, next ${monitor.next_tick_at ?? 'none (paused)'}.`,
      changes.length === 0
        ? 'No page has changed yet (the first tick reports every page new once it has run).'
        : changes.map((c) => `- ${c.change_status} ${c.url} at ${c.detected_at}`).join('\n'),
    ];
    const diffs = parts.length > 0 ? new UntrustedContentFence().wrap(parts.join('\n\n'), monitor.urls[0] ?? '', 'diff') : null;
    return {
      content: [{ type: 'text', text: lines.join('\n') }, ...(diffs ? [{ type: 'text' as const, text: diffs }] : [])],
      structuredContent: { monitor, changes, diffs },
    };
  }
}
