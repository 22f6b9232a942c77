import { JOB_PAGE_LIMITS, JobListingItem, JobListingPage, JobStatus, LISTED_URL_MAX, ListJobsQuery } from '@lib/contracts';
import { DATABASE, DatabaseConnection } from '@lib/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { ListedRunNotFoundError } from '../result-store.errors';
import { CursorPosition, JobListingCursor } from './job-listing-cursor';

interface JobRow {
  id: string;
  seq: string;
  run_id: string;
  collection_id: string;
  status: JobStatus;
  url: string;
  custom_id: string | null;
  status_code: number | null;
  message: string | null;
  queued_at: Date | null;
  started_at: Date | null;
  completed_at: Date | null;
  execution_time_ms: number | null;
  retries_attempted: number;
  block_reason: string | null;
  protection_stack: string[] | null;
  rule_hits: string[] | null;
  is_success: boolean | null;
  body?: string | null;
}

const COLUMNS =
  'j.id, j.seq::text as seq, j.run_id, j.collection_id, j.status, left(j.url, $URLMAX) as url, length(j.url) > $URLMAX as url_cut, j.custom_id, j.status_code, j.message, j.queued_at, j.started_at, j.completed_at, j.execution_time_ms, j.retries_attempted, j.block_reason, j.protection_stack, j.rule_hits, j.is_success';

/**
 * A run's jobs page by page (spec 4.5), straight from the rows batch-orchestrator commits — a job
 * is listed the moment its completion commits. Keyset pagination on (seq) or (completed_at, seq):
 * each job appears exactly once while a client drains the listing, however many complete meanwhile.
 */
@Injectable()
export class JobListing {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}

  async page(query: ListJobsQuery): Promise<JobListingPage> {
    const [run] = await this.db.sql.query('select id from runs where id = $1 and collection_id = $2 and client_id = $3', [
      query.run_id,
      query.collection_id,
      query.client_id,
    ]);
    if (!run) throw new ListedRunNotFoundError(`Run ${query.run_id} not found under collection ${query.collection_id}.`);
    const dir = query.order_by === 'completed_at' ? query.order_dir : 'asc';
    const position = query.cursor ? JobListingCursor.decode(query.cursor, { order: query.order_by, dir, run: query.run_id }) : null;
    const limit = Math.min(query.limit, query.include_results ? JOB_PAGE_LIMITS.maxWithResults : JOB_PAGE_LIMITS.max);

    const params: unknown[] = [query.run_id];
    const where = ['j.run_id = $1'];
    if (query.statuses && query.statuses.length > 0) where.push(`j.status = any($${params.push(query.statuses)}::text[])`);
    if (query.since_completed_at_ms !== undefined) where.push(`j.completed_at > $${params.push(new Date(query.since_completed_at_ms))}`);
    let order: string;
    if (query.order_by === 'completed_at') {
      // Ordered by completion: only finished jobs have a place in it.
      where.push('j.completed_at is not null');
      const cmp = dir === 'asc' ? '>' : '<';
      if (position)
        where.push(
          `(j.completed_at, j.seq) ${cmp} ($${params.push(new Date(position.completedAt!))}, $${params.push(position.seq)}::bigint)`,
        );
      order = `j.completed_at ${dir}, j.seq ${dir}`;
    } else {
      if (position) where.push(`j.seq > $${params.push(position.seq)}::bigint`);
      order = 'j.seq asc';
    }
    const withBody = query.include_results
      ? `, (select case when r.size_bytes <= ${JOB_PAGE_LIMITS.inlineResultBytes} and j.status = 'completed' then r.body end from job_results r where r.job_id = j.id) as body`
      : '';
    const sql = `select ${COLUMNS.replaceAll('$URLMAX', String(LISTED_URL_MAX))}${withBody} from jobs j where ${where.join(' and ')} order by ${order} limit ${limit + 1}`;
    const rows = await this.db.sql.query<JobRow & { url_cut: boolean }>(sql, params);
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
            completedAt: last.completed_at ? new Date(last.completed_at).toISOString() : undefined,
          }
        : null;
    return {
      items: pageRows.map((row) => itemOf(row, query.include_results)),
      cursor_next: next ? JobListingCursor.encode(next) : null,
      has_more,
    };
  }
}

function itemOf(row: JobRow & { url_cut: boolean }, includeResults: boolean): JobListingItem {
  const item: JobListingItem = {
    job_public_id: row.id,
    run_public_id: row.run_id,
    collection_id: row.collection_id,
    status: row.status,
    url: row.url,
    url_truncated: row.url_cut,
    custom_id: row.custom_id,
    status_code: row.status_code,
    message: row.message,
    queued_at: listingTime(row.queued_at),
    started_at: listingTime(row.started_at),
    completed_at: listingTime(row.completed_at),
    execution_time_ms: row.execution_time_ms ?? 0,
    retries_attempted: row.retries_attempted,
    block_reason: row.block_reason,
    protection_stack: row.protection_stack ?? [],
    rule_hits: row.rule_hits ?? [],
    is_success: row.is_success,
  };
  if (includeResults) item.result = row.body ? JSON.parse(row.body) : null;
  return item;
}

/** ISO 8601 in UTC with milliseconds and no zone suffix, as the spec's examples write it. */
export function listingTime(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString().slice(0, 23);
}
