import { PROJECT_STATUSES, type ProjectStatus } from '@lib/contracts';
import fc from 'fast-check';
import { InvalidProjectCursorError } from '../batch-orchestrator.errors';
import { ProjectListingCursor } from './project-listing-cursor';

const statusOrNone = fc.option(fc.constantFrom(...PROJECT_STATUSES), { nil: undefined });

/** The projects cursor comes back from the client: anything that is not what encode() wrote is a 400, never a query. */
describe('ProjectListingCursor', () => {
  it('round-trips every position under the filter it was made with', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(0), max: new Date('2999-12-31'), noInvalidDate: true }),
        fc.uuid(),
        statusOrNone,
        (at, id, status) => {
          expect(ProjectListingCursor.decode(ProjectListingCursor.encode({ createdAt: at, id }, status), status)).toEqual({
            createdAt: at,
            id,
          });
        },
      ),
    );
  });

  it('refuses a cursor under another status filter', () => {
    const cursor = ProjectListingCursor.encode({ createdAt: new Date(), id: '5b7d9f1a-3c5e-4f7a-9b1d-2e4f6a8c0d1e' }, 'active');
    for (const other of [undefined, 'paused', 'closed'] as Array<ProjectStatus | undefined>)
      expect(() => ProjectListingCursor.decode(cursor, other)).toThrow(InvalidProjectCursorError);
  });

  it('answers any other string, and any forged JSON, with InvalidProjectCursorError only', () => {
    const refusedOrDecoded = (text: string, status: ProjectStatus | undefined) => {
      try {
        const position = ProjectListingCursor.decode(text, status);
        expect(position.createdAt.toISOString()).toMatch(/Z$/);
        expect(position.id).toMatch(/^[0-9a-f-]{36}$/);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidProjectCursorError);
      }
    };
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), statusOrNone, refusedOrDecoded));
    const forged = fc.record({ c: fc.anything(), i: fc.anything(), s: fc.anything() }, { requiredKeys: [] });
    fc.assert(
      fc.property(forged, statusOrNone, (raw, status) =>
        refusedOrDecoded(Buffer.from(JSON.stringify(raw) ?? 'null').toString('base64url'), status),
      ),
    );
  });
});
