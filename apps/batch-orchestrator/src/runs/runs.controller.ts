import { CancelRunCommand, ListRunsQuery, RunReference, RunView, StartRunCommand, SUBJECTS } from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RunNotFoundError } from '../batch-orchestrator.errors';
import { RunCancellation } from './run-cancellation';
import { RunLauncher } from './run-launcher';
import { RunViews } from './run-views';

/** Runs of a collection (spec 4.4). */
@Controller()
export class RunsController {
  constructor(
    private readonly launcher: RunLauncher,
    private readonly views: RunViews,
    private readonly cancellation: RunCancellation,
  ) {}

  @MessagePattern(SUBJECTS.runs.cancel)
  cancel(@Payload() command: CancelRunCommand): Promise<RunView> {
    return this.cancellation.cancelCollectionRun(command);
  }

  @MessagePattern(SUBJECTS.runs.start)
  start(@Payload() command: StartRunCommand): Promise<RunView> {
    return this.launcher.start(command);
  }

  @MessagePattern(SUBJECTS.runs.get)
  async get(@Payload() query: RunReference): Promise<RunView> {
    const run = await this.views.find(query.client_id, query.collection_id, query.run_id);
    if (!run) throw new RunNotFoundError(`Run ${query.run_id} not found under collection ${query.collection_id}.`);
    return run;
  }

  @MessagePattern(SUBJECTS.runs.list)
  list(@Payload() query: ListRunsQuery): Promise<{ items: RunView[]; total: number }> {
    return this.views.list(query.client_id, query.collection_id, query.status_filter);
  }
}
