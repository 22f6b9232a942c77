import type { JobOrder } from '@lib/contracts';
import { InvalidCursorError } from '../result-store.errors';

/** Where a page ended: the last row's keys under the listing's order. */
export interface CursorPosition {
  order: JobOrder;
  dir: 'asc' | 'desc';
  run: string;
  seq: string;
  /** ISO time of the last row (order_by=completed_at only). */
  completedAt?: string;
}

/**
 * The opaque cursor of a jobs listing (spec 4.5): base64url JSON of the last row's keys plus the
 * order it was made under, so reusing it under another order_by — or another run — is a 400
 * rather than a silently wrong page. It names a position, not a snapshot: it never expires, and
 * once the rows are pruned it simply finds nothing after it.
 */
export const JobListingCursor = {
  encode(position: CursorPosition): string {
    const compact = { o: position.order, d: position.dir, r: position.run, s: position.seq, c: position.completedAt };
    return Buffer.from(JSON.stringify(compact)).toString('base64url');
  },

  decode(cursor: string, expected: { order: JobOrder; dir: 'asc' | 'desc'; run: string }): CursorPosition {
    let raw: { o?: unknown; d?: unknown; r?: unknown; s?: unknown; c?: unknown };
    try {
      raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidCursorError('The cursor is not valid: pass cursor_next from a previous page unchanged.');
    }
    if (typeof raw !== 'object' || raw === null || (raw.o !== 'id' && raw.o !== 'completed_at') || typeof raw.s !== 'string' || !/^\d+$/.test(raw.s) || typeof raw.r !== 'string') {
      throw new InvalidCursorError('The cursor is not valid: pass cursor_next from a previous page unchanged.');
    }
    if (raw.o !== expected.order) {
      throw new InvalidCursorError(`The cursor was made under order_by=${raw.o}; it cannot continue a listing ordered by ${expected.order}.`);
    }
    if (raw.r !== expected.run) throw new InvalidCursorError('The cursor belongs to another run.');
    if (raw.o === 'completed_at') {
      if (raw.d !== expected.dir) throw new InvalidCursorError(`The cursor was made under order_dir=${String(raw.d)}; it cannot continue a listing in order_dir=${expected.dir}.`);
      if (typeof raw.c !== 'string' || Number.isNaN(Date.parse(raw.c))) throw new InvalidCursorError('The cursor is not valid: pass cursor_next from a previous page unchanged.');
    }
    return { order: raw.o, dir: raw.o === 'completed_at' ? expected.dir : 'asc', run: raw.r, seq: raw.s, completedAt: typeof raw.c === 'string' ? raw.c : undefined };
  },
};
