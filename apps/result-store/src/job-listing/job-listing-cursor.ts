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

const MAX_BIGINT = 9_223_372_036_854_775_807n;
// Exactly what encode() writes for a completion time (Date#toISOString), nothing looser.
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// base64url of at most a few hundred bytes: a cursor is never longer than this.
const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,1024}$/;
const NOT_VALID = 'The cursor is not valid: pass cursor_next from a previous page unchanged.';

/** A listing position (seq) as the database's bigint accepts it. */
function isSeq(value: unknown): value is string {
  return typeof value === 'string' && /^\d{1,19}$/.test(value) && BigInt(value) <= MAX_BIGINT;
}

/** A completion time that round-trips through Date and so lies within the database's range. */
function isCursorTime(value: unknown): value is string {
  if (typeof value !== 'string' || !CURSOR_TIME.test(value)) return false;
  const time = new Date(value);
  return !Number.isNaN(time.getTime()) && time.getUTCFullYear() >= 1970 && time.toISOString() === value;
}

/**
 * The opaque cursor of a jobs listing (spec 4.5): base64url JSON of the last row's keys plus the
 * order it was made under, so reusing it under another order_by — or another run — is a 400
 * rather than a silently wrong page. It names a position, not a snapshot: it never expires, and
 * once the rows are pruned it simply finds nothing after it.
 *
 * A cursor comes back from the client, so decode() treats it as untrusted input: every field is
 * checked against exactly what encode() can produce before any of it reaches a query.
 */
export const JobListingCursor = {
  encode(position: CursorPosition): string {
    const compact = { o: position.order, d: position.dir, r: position.run, s: position.seq, c: position.completedAt };
    return Buffer.from(JSON.stringify(compact)).toString('base64url');
  },

  decode(cursor: string, expected: { order: JobOrder; dir: 'asc' | 'desc'; run: string }): CursorPosition {
    let raw: { o?: unknown; d?: unknown; r?: unknown; s?: unknown; c?: unknown };
    if (!CURSOR_TEXT.test(cursor)) throw new InvalidCursorError(NOT_VALID);
    try {
      raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidCursorError(NOT_VALID);
    }
    if (
      typeof raw !== 'object' ||
      raw === null ||
      Array.isArray(raw) ||
      (raw.o !== 'id' && raw.o !== 'completed_at') ||
      !isSeq(raw.s) ||
      typeof raw.r !== 'string'
    ) {
      throw new InvalidCursorError(NOT_VALID);
    }
    if (raw.o !== expected.order) {
      throw new InvalidCursorError(
        `The cursor was made under order_by=${raw.o}; it cannot continue a listing ordered by ${expected.order}.`,
      );
    }
    if (raw.r !== expected.run) throw new InvalidCursorError('The cursor belongs to another run or to a listing with other filters.');
    if (raw.o === 'completed_at') {
      if (raw.d !== expected.dir)
        throw new InvalidCursorError(
          `The cursor was made under order_dir=${String(raw.d)}; it cannot continue a listing in order_dir=${expected.dir}.`,
        );
      if (!isCursorTime(raw.c)) throw new InvalidCursorError(NOT_VALID);
    }
    return {
      order: raw.o,
      dir: raw.o === 'completed_at' ? expected.dir : 'asc',
      run: raw.r,
      seq: raw.s,
      completedAt: typeof raw.c === 'string' ? raw.c : undefined,
    };
  },
};
