import { CRAWL_DELIVERY_LISTING, CrawlWebhookDeliveries, RunDeliveriesQuery } from '@lib/contracts';
import { Injectable } from '@nestjs/common';
import { WebhookOutboxStore } from '../persistence/webhook-outbox.store';
import { InvalidDeliveryCursorError } from '../webhook-sender.errors';

const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,1024}$/;
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NOT_VALID = 'The cursor is not valid: pass cursor_next from a previous page of this crawl unchanged.';

/**
 * The opaque cursor of a run's delivery listing: the last row's (created_at, id) and the run it
 * was made for. It comes back from the client, so every field is checked against what encode() writes.
 */
export const DeliveryListingCursor = {
  encode(after: { createdAt: Date; id: string }, runId: string): string {
    return Buffer.from(JSON.stringify({ c: new Date(after.createdAt).toISOString(), i: after.id, r: runId })).toString('base64url');
  },

  decode(cursor: string, runId: string): { createdAt: Date; id: string } {
    if (!CURSOR_TEXT.test(cursor)) throw new InvalidDeliveryCursorError(NOT_VALID);
    let raw: { c?: unknown; i?: unknown; r?: unknown };
    try {
      raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidDeliveryCursorError(NOT_VALID);
    }
    if (typeof raw !== 'object' || raw === null || typeof raw.c !== 'string' || !CURSOR_TIME.test(raw.c) || typeof raw.i !== 'string')
      throw new InvalidDeliveryCursorError(NOT_VALID);
    const createdAt = new Date(raw.c);
    if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== raw.c || !UUID.test(raw.i) || raw.r !== runId)
      throw new InvalidDeliveryCursorError(NOT_VALID);
    return { createdAt, id: raw.i };
  },
};

/**
 * A run's webhooks as its owner sees them, whatever its kind (decision 0036) — for a crawl (issue 39)
 * one row per page that ended (`crawl.page`, when it asked for them) and its own `crawl.completed` —
 * oldest first, with each one's delivery state — so a receiver that was down can see what it
 * missed and redeliver it.
 */
@Injectable()
export class RunDeliveryListing {
  constructor(private readonly outbox: WebhookOutboxStore) {}

  async list(query: RunDeliveriesQuery): Promise<CrawlWebhookDeliveries> {
    const limit = query.limit ?? CRAWL_DELIVERY_LISTING.defaultLimit;
    const after = query.cursor ? DeliveryListingCursor.decode(query.cursor, query.run_id) : null;
    // One row more than asked tells whether another page follows.
    const rows = await this.outbox.listOfRun(query.run_id, query.client_id, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((row) => ({
        delivery_id: row.id,
        event: row.event,
        job_id: row.jobId,
        url: row.url,
        status: row.status,
        attempts: row.attempts,
        next_attempt_at: row.nextAttemptAt ? new Date(row.nextAttemptAt).toISOString() : null,
        last_status_code: row.lastStatusCode,
        last_error: row.lastError,
        created_at: new Date(row.createdAt).toISOString(),
      })),
      has_more: rows.length > limit,
      cursor_next: rows.length > limit && last ? DeliveryListingCursor.encode(last, query.run_id) : null,
    };
  }
}
