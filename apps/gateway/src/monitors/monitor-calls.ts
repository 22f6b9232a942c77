import { clientPatternProblem, compilePathPattern } from '@lib/client-patterns';
import {
  CreateMonitorRequest,
  MonitorDeleted,
  MonitorList,
  MonitorTickList,
  MonitorView,
  PageChangeView,
  ScrapeRequest,
  scheduleProblem,
  shortestGapSeconds,
  SUBJECTS,
  toProblems,
  type ValidationProblem,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { parse } from 'node-html-parser';
import type { AdmittedCall } from '../admission/caller.decorator';
import { RequestValidationError } from '../gateway.errors';

// Checking URLs against the SSRF guard happens in batch-orchestrator, one DNS lookup per URL.
const CREATE_TIMEOUT_MS = 60_000;

/**
 * The monitors' REST calls (issue 63): a create is checked here for everything that needs no
 * lookup — the schedule parses and is not more frequent than the plan allows, the URLs are within
 * the plan, the scrape options are a scrape's, the ignore selectors parse and the patterns are RE2
 * — each problem a 422 at its field; batch-orchestrator then vets the targets and counts monitors.
 */
@Injectable()
export class MonitorCalls {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  async create(request: CreateMonitorRequest, caller: AdmittedCall): Promise<MonitorView> {
    const allowance = caller.client.limits.monitors;
    const problems = [...(await createProblems(request)), ...planProblems(request, allowance)];
    if (problems.length > 0) throw new RequestValidationError(problems);
    return this.bus.request(
      SUBJECTS.monitors.create,
      {
        client_id: caller.client.id,
        request,
        max_concurrency: caller.client.limits.batchConcurrency,
        monthly_credits: caller.client.limits.monthlyCredits,
        max_monitors: allowance.monitors,
        max_pages: allowance.urlsPerMonitor,
      },
      { correlationId: caller.requestId, timeoutMs: CREATE_TIMEOUT_MS },
    );
  }

  get(monitorId: string, caller: AdmittedCall): Promise<MonitorView> {
    return this.bus.request(
      SUBJECTS.monitors.get,
      { client_id: caller.client.id, monitor_id: monitorId },
      { correlationId: caller.requestId },
    );
  }

  list(caller: AdmittedCall): Promise<MonitorList> {
    return this.bus.request(SUBJECTS.monitors.list, { client_id: caller.client.id }, { correlationId: caller.requestId });
  }

  ticks(monitorId: string, caller: AdmittedCall): Promise<MonitorTickList> {
    return this.bus.request(
      SUBJECTS.monitors.ticks,
      { client_id: caller.client.id, monitor_id: monitorId },
      { correlationId: caller.requestId },
    );
  }

  async changes(monitorId: string, limit: number, caller: AdmittedCall): Promise<{ changes: PageChangeView[] }> {
    // Asked side by side: the changes are the client's own (keyed by client), and the monitor's read
    // only turns an id that is not theirs into a 404 instead of an empty list.
    const [, changes] = await Promise.all([
      this.get(monitorId, caller),
      this.bus.request(
        SUBJECTS.pageVersions.changes,
        { client_id: caller.client.id, monitor_id: monitorId, limit },
        { correlationId: caller.requestId },
      ),
    ]);
    return changes;
  }

  transition(monitorId: string, action: 'pause' | 'resume' | 'tick', caller: AdmittedCall): Promise<MonitorView> {
    return this.bus.request(
      SUBJECTS.monitors.transition,
      { client_id: caller.client.id, monitor_id: monitorId, action },
      { correlationId: caller.requestId },
    ) as Promise<MonitorView>;
  }

  delete(monitorId: string, caller: AdmittedCall): Promise<MonitorDeleted> {
    return this.bus.request(
      SUBJECTS.monitors.transition,
      { client_id: caller.client.id, monitor_id: monitorId, action: 'delete' },
      { correlationId: caller.requestId },
    ) as Promise<MonitorDeleted>;
  }
}

/** What the request says wrong of itself: the schedule, the scrape options, the ignore rules. */
async function createProblems(request: CreateMonitorRequest): Promise<ValidationProblem[]> {
  const problems: ValidationProblem[] = [];
  const problem = (loc: Array<string | number>, msg: string) => problems.push({ loc: ['body', ...loc], msg, type: 'value_error' });
  const schedule = scheduleProblem(request.schedule);
  if (schedule) problem(['schedule', request.schedule.cron !== undefined ? 'cron' : 'interval_seconds'], schedule);
  if (request.scrape) {
    if ('format' in request.scrape) problem(['scrape', 'format'], 'a monitor compares the markdown of its pages; leave format out.');
    const { format: _format, ...options } = request.scrape;
    const instance = plainToInstance(ScrapeRequest, { ...options, url: 'http://monitor.invalid/' });
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false });
    problems.push(...toProblems(errors, ['body', 'scrape']));
    if ('url' in request.scrape) problem(['scrape', 'url'], 'the pages are `urls` (or `crawl`); leave url out of scrape.');
  }
  for (const field of ['include_paths', 'exclude_paths'] as const)
    for (const [i, pattern] of (request.crawl?.[field] ?? []).entries()) {
      const compiled = compilePathPattern(pattern);
      if ('problem' in compiled) problem(['crawl', field, i], compiled.problem);
    }
  const probe = parse('<html><body></body></html>');
  for (const [i, selector] of (request.ignore?.selectors ?? []).entries()) {
    try {
      probe.querySelectorAll(selector);
    } catch (error) {
      problem(['ignore', 'selectors', i], `"${selector.slice(0, 100)}" is not a CSS selector: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  for (const [i, pattern] of (request.ignore?.patterns ?? []).entries()) {
    const wrong = clientPatternProblem(pattern, 'gu');
    if (wrong !== null) problem(['ignore', 'patterns', i], `"${pattern.slice(0, 100)}" is not an RE2 expression: ${wrong}`);
  }
  return problems;
}

/** Past the plan: more URLs than a monitor may hold, ticks more often than the plan allows. */
function planProblems(
  request: CreateMonitorRequest,
  allowance: { urlsPerMonitor: number; minIntervalSeconds: number },
): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const urls = new Set(request.urls ?? []).size;
  if (request.crawl?.max_pages !== undefined && request.crawl.max_pages > allowance.urlsPerMonitor)
    problems.push({
      loc: ['body', 'crawl', 'max_pages'],
      msg: `This plan allows ${allowance.urlsPerMonitor} pages per monitor; max_pages ${request.crawl.max_pages} given.`,
      type: 'value_error',
    });
  if (urls > allowance.urlsPerMonitor)
    problems.push({
      loc: ['body', 'urls'],
      msg: `This plan allows ${allowance.urlsPerMonitor} URLs per monitor; ${urls} given.`,
      type: 'value_error',
    });
  if (scheduleProblem(request.schedule) === null) {
    const gap = shortestGapSeconds(request.schedule);
    if (gap < allowance.minIntervalSeconds)
      problems.push({
        loc: ['body', 'schedule', request.schedule.cron !== undefined ? 'cron' : 'interval_seconds'],
        msg: `This plan ticks at most every ${allowance.minIntervalSeconds} s; this schedule ticks every ${gap} s.`,
        type: 'value_error',
      });
  }
  return problems;
}
