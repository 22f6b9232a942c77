import { JOB_PAGE_LIMITS, JobListingItem, JobListingPage, jobOutcomeOf, ListJobsQuery } from '@lib/contracts';
import { Injectable } from '@nestjs/common';
import { type ListedJobRow, ListedJobStore } from '../persistence/listed-jobs.store';
import { ListedRunNotFoundError } from '../result-store.errors';
import { CursorPosition, JobListingCursor } from './job-listing-cursor';

/**
 * A run's jobs page by page (spec 4.5), straight from the rows batch-orchestrator commits — a job
 * is listed the moment its completion commits. Keyset pagination on (seq) or (completed_at, seq):
 * each job appears exactly once while a client drains the listing, however many complete meanwhile.
 */
@Injectable()
export class JobListing {
  constructor(private readonly jobs: ListedJobStore) {}

  async page(query: ListJobsQuery): Promise<JobListingPage> {
    const run = { runId: query.run_id, collectionId: query.collection_id, clientId: query.client_id };
    if (!(await this.jobs.runExists(run)))
      throw new ListedRunNotFoundError(`Run ${query.run_id} not found under collection ${query.collection_id}.`);
    const dir = query.order_by === 'completed_at' ? query.order_dir : 'asc';
    const position = query.cursor ? JobListingCursor.decode(query.cursor, { order: query.order_by, dir, run: query.run_id }) : null;
    const limit = Math.min(query.limit, query.include_results ? JOB_PAGE_LIMITS.maxWithResults : JOB_PAGE_LIMITS.max);

    const rows = await this.jobs.page({
      runId: query.run_id,
      statuses: query.statuses,
      completedAfter: query.since_completed_at_ms !== undefined ? new Date(query.since_completed_at_ms) : undefined,
      orderBy: query.order_by === 'completed_at' ? 'completed_at' : 'id',
      dir,
      after: position ? { seq: position.seq, completedAt: position.completedAt ? new Date(position.completedAt) : undefined } : null,
      limit,
      withResults: query.include_results,
    });
    const has_more = rows.length > limit;
    const pageRows = rows.slice(0, limit);
    const last = pageRows[pageRows.length - 1];
    const next: CursorPosition | null =
      has_more && last
        ? {
            order: query.order_by,
            dir,
            run: query.run_id,
            seq: last.seq,
            completedAt: last.completedAt ? new Date(last.completedAt).toISOString() : undefined,
          }
        : null;
    return {
      items: pageRows.map((row) => itemOf(row, query.include_results)),
      cursor_next: next ? JobListingCursor.encode(next) : null,
      has_more,
    };
  }
}

function itemOf(row: ListedJobRow, includeResults: boolean): JobListingItem {
  const item: JobListingItem = {
    job_public_id: row.id,
    job_id: row.id,
    run_public_id: row.runId,
    run_id: row.runId,
    collection_id: row.collectionId,
    // Spec 3.2's statuses have no `cancelled`: a job cancelled before it ran is listed as failed.
    status: row.status === 'cancelled' ? 'failed' : row.status,
    url: row.url,
    url_truncated: row.urlCut,
    custom_id: row.customId,
    status_code: row.statusCode,
    message: row.message,
    queued_at: listingTime(row.queuedAt),
    started_at: listingTime(row.startedAt),
    completed_at: listingTime(row.completedAt),
    execution_time_ms: row.executionTimeMs ?? 0,
    retries_attempted: row.retriesAttempted,
    block_reason: row.blockReason,
    protection_stack: row.protectionStack ?? [],
    rule_hits: row.ruleHits ?? [],
    is_success: row.isSuccess,
    outcome: jobOutcomeOf(row.status, row.isSuccess),
  };
  if (includeResults) item.result = row.body ? JSON.parse(row.body) : null;
  return item;
}

/** ISO 8601 in UTC with milliseconds and no zone suffix, as the spec's examples write it. */
export function listingTime(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString().slice(0, 23);
}
