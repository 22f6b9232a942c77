import type { ProjectStatus } from '@lib/contracts';
import { InvalidProjectCursorError } from '../batch-orchestrator.errors';

const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,1024}$/;
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NOT_VALID = 'The cursor is not valid: pass cursor_next from a previous page unchanged.';

/**
 * The opaque cursor of GET /v1/projects: the last project's (created_at, id) and the status
 * filter it was made under (reusing it under another filter is a 400, not a wrong page). It comes
 * back from the client, so every field is checked against what encode() writes.
 */
export const ProjectListingCursor = {
  encode(after: { createdAt: Date; id: string }, status: ProjectStatus | undefined): string {
    return Buffer.from(JSON.stringify({ c: after.createdAt.toISOString(), i: after.id, s: status ?? null })).toString('base64url');
  },

  decode(cursor: string, status: ProjectStatus | undefined): { createdAt: Date; id: string } {
    if (!CURSOR_TEXT.test(cursor)) throw new InvalidProjectCursorError(NOT_VALID);
    let raw: { c?: unknown; i?: unknown; s?: unknown };
    try {
      raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidProjectCursorError(NOT_VALID);
    }
    if (typeof raw !== 'object' || raw === null || typeof raw.c !== 'string' || !CURSOR_TIME.test(raw.c) || typeof raw.i !== 'string')
      throw new InvalidProjectCursorError(NOT_VALID);
    const createdAt = new Date(raw.c);
    if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== raw.c || !UUID.test(raw.i))
      throw new InvalidProjectCursorError(NOT_VALID);
    if ((raw.s ?? null) !== (status ?? null)) throw new InvalidProjectCursorError('The cursor was made under another status filter.');
    return { createdAt, id: raw.i };
  },
};
