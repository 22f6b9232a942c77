import fc from 'fast-check';
import { InvalidCursorError } from '../result-store.errors';
import { JobListingCursor } from './job-listing-cursor';

describe('JobListingCursor', () => {
  const run = '5f0c7d3e-1111-4222-8333-444455556666';

  it('round-trips a position under its own order', () => {
    const cursor = JobListingCursor.encode({ order: 'completed_at', dir: 'desc', run, seq: '42', completedAt: '2026-11-23T10:00:00.123Z' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JobListingCursor.decode(cursor, { order: 'completed_at', dir: 'desc', run })).toEqual({
      order: 'completed_at',
      dir: 'desc',
      run,
      seq: '42',
      completedAt: '2026-11-23T10:00:00.123Z',
    });
  });

  it('refuses a cursor made under another order_by, order_dir or run', () => {
    const byId = JobListingCursor.encode({ order: 'id', dir: 'asc', run, seq: '7' });
    expect(() => JobListingCursor.decode(byId, { order: 'completed_at', dir: 'asc', run })).toThrow(/order_by=id/);
    const desc = JobListingCursor.encode({ order: 'completed_at', dir: 'desc', run, seq: '7', completedAt: '2026-11-23T10:00:00.000Z' });
    expect(() => JobListingCursor.decode(desc, { order: 'completed_at', dir: 'asc', run })).toThrow(InvalidCursorError);
    expect(() => JobListingCursor.decode(byId, { order: 'id', dir: 'asc', run: run.replace('5', '6') })).toThrow(/another run/);
  });

  it.each(['garbage', Buffer.from('{"o":"id","s":"x","r":"r"}').toString('base64url'), Buffer.from('[1]').toString('base64url')])(
    'refuses a forged or damaged cursor %s',
    (cursor) => {
      expect(() => JobListingCursor.decode(cursor, { order: 'id', dir: 'asc', run })).toThrow(InvalidCursorError);
    },
  );
});

describe('JobListingCursor as untrusted input', () => {
  const run = '5f0c7d3e-1111-4222-8333-444455556666';
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
  const expected = (order: 'id' | 'completed_at') => ({ order, dir: 'asc' as const, run });

  /** Either a position the database can take, or InvalidCursorError: never anything else. */
  function decodeOrRefuse(cursor: string, order: 'id' | 'completed_at'): void {
    let position;
    try {
      position = JobListingCursor.decode(cursor, expected(order));
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidCursorError);
      return;
    }
    expect(BigInt(position.seq) <= 9_223_372_036_854_775_807n).toBe(true);
    if (order === 'completed_at') expect(new Date(position.completedAt!).toISOString()).toBe(position.completedAt);
  }

  it('decodes any text to a usable position or a 400, never a throw of another kind', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('id' as const, 'completed_at' as const), decodeOrRefuse),
      { numRuns: 1000, seed },
    );
  });

  it('refuses forged fields out of the database range', () => {
    const forged = fc.record({
      o: fc.constantFrom('id', 'completed_at'),
      d: fc.constant('asc'),
      r: fc.constant(run),
      s: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String), fc.string(), fc.integer().map(String), fc.double().map(String)),
      c: fc.oneof(
        fc.date({ noInvalidDate: false }).map((d) => (Number.isNaN(d.getTime()) ? 'Invalid' : d.toISOString())),
        fc.string(),
        fc.constant('+275760-09-13T00:00:00.000Z'),
        fc.constant('0000-01-01T00:00:00.000Z'),
        fc.constant('2026-02-30T00:00:00.000Z'),
      ),
    });
    fc.assert(
      fc.property(forged, (raw) => decodeOrRefuse(Buffer.from(JSON.stringify(raw)).toString('base64url'), raw.o as 'id' | 'completed_at')),
      { numRuns: 1000, seed },
    );
    const huge = Buffer.from(JSON.stringify({ o: 'id', r: run, s: '99999999999999999999' })).toString('base64url');
    expect(() => JobListingCursor.decode(huge, expected('id'))).toThrow(InvalidCursorError);
  });
});
