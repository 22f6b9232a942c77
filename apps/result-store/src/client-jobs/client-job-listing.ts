import { ClientJobItem, ClientJobPage, ListClientJobsQuery } from '@lib/contracts';
import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ListedBatchNotFoundError, ListedProjectNotFoundError } from '../result-store.errors';
import { listingTime } from '../job-listing/job-listing';
import { JobListingCursor } from '../job-listing/job-listing-cursor';
import { type ClientJobRow, ClientJobStore } from '../persistence/client-jobs.store';

/**
 * GET /v1/jobs: the client's jobs across batches and collection runs, filtered by project, batch,
 * status, outcome and queue time, with the run listing's cursor rules (spec 4.5): keyset on insertion
 * order, so each job appears once while a client drains it; a cursor made under other filters is
 * a 400, not a wrong page.
 */
@Injectable()
export class ClientJobListing {
  constructor(private readonly jobs: ClientJobStore) {}

  async page(query: ListClientJobsQuery): Promise<ClientJobPage> {
    if (query.project_id && !(await this.jobs.projectExists(query.client_id, query.project_id)))
      throw new ListedProjectNotFoundError(`Project ${query.project_id} not found.`);
    if (query.batch_id && !(await this.jobs.batchExists(query.client_id, query.batch_id)))
      throw new ListedBatchNotFoundError(`Batch ${query.batch_id} not found.`);
    const statuses = query.statuses ? [...new Set(query.statuses)].sort() : undefined;
    const outcomes = query.outcomes ? [...new Set(query.outcomes)].sort() : undefined;
    // The cursor is bound to the listing it came from: the filters, hashed into its `run` field.
    const filters: unknown[] = [query.project_id ?? null, query.batch_id ?? null, statuses ?? null, query.since_ms ?? null];
    // (outcomes appended only when given, so a cursor issued before the filter existed still reads.)
    if (outcomes) filters.push(outcomes);
    const scope = `jobs:${createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 22)}`;
    const position = query.cursor ? JobListingCursor.decode(query.cursor, { order: 'id', dir: 'asc', run: scope }) : null;
    const rows = await this.jobs.page({
      clientId: query.client_id,
      projectId: query.project_id,
      batchId: query.batch_id,
      statuses,
      outcomes,
      queuedSince: query.since_ms === undefined ? undefined : new Date(query.since_ms),
      afterSeq: position?.seq ?? null,
      limit: query.limit,
    });
    const has_more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(itemOf),
      cursor_next: has_more && last ? JobListingCursor.encode({ order: 'id', dir: 'asc', run: scope, seq: last.seq }) : null,
      has_more,
    };
  }
}

function itemOf(row: ClientJobRow): ClientJobItem {
  return {
    job_id: row.id,
    job_public_id: row.id,
    batch_id: row.runId,
    batch_kind: row.kind,
    project_id: row.projectId,
    collection_id: row.collectionId,
    status: row.status,
    url: row.url,
    url_truncated: row.urlCut,
    custom_id: row.customId,
    status_code: row.statusCode,
    error: row.error,
    queued_at: listingTime(row.queuedAt)!,
    started_at: listingTime(row.startedAt),
    completed_at: listingTime(row.completedAt),
    retries_attempted: row.retriesAttempted,
    is_success: row.isSuccess,
    outcome: row.outcome,
    credits: row.credits,
  };
}
