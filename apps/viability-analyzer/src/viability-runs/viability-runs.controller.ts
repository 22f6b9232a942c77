import {
  CreateViabilityRunCommand,
  ListViabilityRunsQuery,
  SUBJECTS,
  ViabilityResult,
  ViabilityRunList,
  ViabilityRunReference,
  ViabilityRunView,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { ViabilityWorker } from '../analysis-worker/viability-worker';
import { InvalidViabilityCursorError, ViabilityRunNotFoundError } from '../viability-analyzer.errors';
import { StoredViabilityRun, ViabilityRunStore } from '../persistence/viability-runs.store';

/** Viability runs (spec 4.6): create one (queued for the worker), read one, list a client's. */
@Controller()
export class ViabilityRunsController {
  constructor(
    private readonly store: ViabilityRunStore,
    private readonly worker: ViabilityWorker,
  ) {}

  @MessagePattern(SUBJECTS.viability.create)
  async create(@Payload() command: CreateViabilityRunCommand): Promise<ViabilityRunView> {
    const run = await this.store.create({
      runId: randomUUID(),
      clientId: command.client_id,
      depth: command.depth,
      urls: [...new Set(command.urls)],
      monthlyCredits: command.monthly_credits,
    });
    this.worker.nudge();
    return viewOf(run);
  }

  @MessagePattern(SUBJECTS.viability.get)
  async get(@Payload() query: ViabilityRunReference): Promise<ViabilityRunView> {
    const run = await this.store.get(query.client_id, query.run_id);
    if (!run) throw new ViabilityRunNotFoundError(`Viability run ${query.run_id} not found.`);
    return viewOf(run);
  }

  @MessagePattern(SUBJECTS.viability.list)
  async list(@Payload() query: ListViabilityRunsQuery): Promise<ViabilityRunList> {
    if (query.cursor && !(await this.store.exists(query.client_id, query.cursor))) {
      throw new InvalidViabilityCursorError('The cursor names no viability run of this client; start again without it.');
    }
    const rows = await this.store.list(query.client_id, query.limit + 1, query.cursor);
    const items = rows.slice(0, query.limit).map(viewOf);
    const hasMore = rows.length > query.limit;
    return { items, has_more: hasMore, cursor_next: hasMore ? items[items.length - 1].run_id : null };
  }
}

function viewOf(run: StoredViabilityRun): ViabilityRunView {
  return {
    run_id: run.runId,
    status: run.status,
    depth: run.depth,
    total_urls: run.totalUrls,
    completed_urls: run.completedUrls,
    results: run.results as ViabilityResult[] | null,
    created_at: run.createdAt.toISOString(),
    completed_at: run.completedAt?.toISOString() ?? null,
  };
}
