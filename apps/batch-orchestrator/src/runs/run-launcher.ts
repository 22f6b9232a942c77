import { CONTENT_RULES_VERSION, RunView, StartRunCommand, SUCCESS_RULES } from '@lib/contracts';
import { DATABASE, DatabaseConnection, storableJson } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CollectionEmptyError, CollectionNotFoundError } from '../batch-orchestrator.errors';
import { JobDispatcher } from '../dispatch/job-dispatcher';
import { RunViews } from './run-views';

/**
 * POST run: the run and one job per stored request are written in one transaction (so a run never
 * exists with part of its jobs), then the first jobs are dispatched within the client's
 * concurrency. Each job copies its request, so later edits or deletion of the collection do not
 * touch a run that has started.
 */
@Injectable()
export class RunLauncher {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly views: RunViews,
    private readonly dispatcher: JobDispatcher,
  ) {}

  async start(command: StartRunCommand): Promise<RunView> {
    const runId = randomUUID();
    const now = this.clock.now();
    const view = await this.db.sql.transaction(async (tx) => {
      const [collection] = await tx.query<{ request_count: number; callback_url: string | null }>(
        'select request_count, callback_url from collections where id = $1 and client_id = $2 for share',
        [command.collection_id, command.client_id],
      );
      if (!collection) throw new CollectionNotFoundError(`Collection ${command.collection_id} not found.`);
      if (collection.request_count === 0) throw new CollectionEmptyError(`Collection ${command.collection_id} has no requests to run.`);
      await tx.query(
        `insert into runs (id, collection_id, client_id, status, total_requests, max_concurrency, monthly_credits, callback_url, callback_status, success_criterion, all_jobs_persisted, created_at)
         values ($1, $2, $3, 'in_progress', $4, $5, $6, $7, $8, $9::jsonb, false, $10)`,
        [
          runId,
          command.collection_id,
          command.client_id,
          collection.request_count,
          command.max_concurrency,
          command.monthly_credits,
          collection.callback_url,
          collection.callback_url ? 'pending' : null,
          storableJson({ version: CONTENT_RULES_VERSION, rules: [...SUCCESS_RULES] }),
          now,
        ],
      );
      // One statement for all jobs: seq (the listing's id order) follows the collection's order.
      await tx.query(
        `insert into jobs (id, run_id, collection_id, client_id, position, url, custom_id, request, mode, queued_at)
         select gen_random_uuid(), $1, c.id, c.client_id, (e.ord - 1)::int, e.item->>'url', e.item->>'custom_id', e.item->'request',
                case when coalesce((e.item->'request'->>'browser')::boolean, false) then 'browser' else 'simple' end, $3
         from collections c cross join lateral jsonb_array_elements(c.requests) with ordinality as e(item, ord)
         where c.id = $2
         order by e.ord`,
        [runId, command.collection_id, now],
      );
      await tx.query(
        'update runs set job_ids = (select coalesce(array_agg(id order by seq), array[]::uuid[]) from jobs where run_id = $1) where id = $1',
        [runId],
      );
      return this.views.find(command.client_id, command.collection_id, runId, tx);
    });
    await this.dispatcher.dispatchFor(command.client_id);
    return view!;
  }
}
