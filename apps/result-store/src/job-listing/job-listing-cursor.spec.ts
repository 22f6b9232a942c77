import { InvalidCursorError } from '../result-store.errors';
import { JobListingCursor } from './job-listing-cursor';

describe('JobListingCursor', () => {
  const run = '5f0c7d3e-1111-4222-8333-444455556666';

  it('round-trips a position under its own order', () => {
    const cursor = JobListingCursor.encode({ order: 'completed_at', dir: 'desc', run, seq: '42', completedAt: '2026-11-23T10:00:00.123Z' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JobListingCursor.decode(cursor, { order: 'completed_at', dir: 'desc', run })).toEqual({ order: 'completed_at', dir: 'desc', run, seq: '42', completedAt: '2026-11-23T10:00:00.123Z' });
  });

  it('refuses a cursor made under another order_by, order_dir or run', () => {
    const byId = JobListingCursor.encode({ order: 'id', dir: 'asc', run, seq: '7' });
    expect(() => JobListingCursor.decode(byId, { order: 'completed_at', dir: 'asc', run })).toThrow(/order_by=id/);
    const desc = JobListingCursor.encode({ order: 'completed_at', dir: 'desc', run, seq: '7', completedAt: '2026-11-23T10:00:00.000Z' });
    expect(() => JobListingCursor.decode(desc, { order: 'completed_at', dir: 'asc', run })).toThrow(InvalidCursorError);
    expect(() => JobListingCursor.decode(byId, { order: 'id', dir: 'asc', run: run.replace('5', '6') })).toThrow(/another run/);
  });

  it.each(['garbage', Buffer.from('{"o":"id","s":"x","r":"r"}').toString('base64url'), Buffer.from('[1]').toString('base64url')])('refuses a forged or damaged cursor %s', (cursor) => {
    expect(() => JobListingCursor.decode(cursor, { order: 'id', dir: 'asc', run })).toThrow(InvalidCursorError);
  });
});
