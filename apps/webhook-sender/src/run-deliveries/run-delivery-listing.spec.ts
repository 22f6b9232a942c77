import fc from 'fast-check';
import { InvalidDeliveryCursorError } from '../webhook-sender.errors';
import { DeliveryListingCursor } from './run-delivery-listing';

const CRAWL = '0b6f2c6e-2a51-4f0e-9d4b-7f1c3a5e9b21';

/** A crawl's delivery cursor comes back from the client: anything that is not what encode() wrote for this crawl is a 400, never a query. */
describe('DeliveryListingCursor', () => {
  it('round-trips every position for the crawl it was made for', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(0), max: new Date('2999-12-31'), noInvalidDate: true }),
        fc.uuid(),
        fc.uuid(),
        (at, id, crawl) => {
          expect(DeliveryListingCursor.decode(DeliveryListingCursor.encode({ createdAt: at, id }, crawl), crawl)).toEqual({
            createdAt: at,
            id,
          });
        },
      ),
    );
  });

  it("refuses another crawl's cursor", () => {
    const cursor = DeliveryListingCursor.encode({ createdAt: new Date(), id: '5b7d9f1a-3c5e-4f7a-9b1d-2e4f6a8c0d1e' }, CRAWL);
    expect(() => DeliveryListingCursor.decode(cursor, '5b7d9f1a-3c5e-4f7a-9b1d-2e4f6a8c0d1e')).toThrow(InvalidDeliveryCursorError);
  });

  it('answers any other string, and any forged JSON, with InvalidDeliveryCursorError only', () => {
    const refusedOrDecoded = (text: string) => {
      try {
        const position = DeliveryListingCursor.decode(text, CRAWL);
        expect(position.createdAt.toISOString()).toMatch(/Z$/);
        expect(position.id).toMatch(/^[0-9a-f-]{36}$/);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidDeliveryCursorError);
      }
    };
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), refusedOrDecoded));
    const forged = fc.record({ c: fc.anything(), i: fc.anything(), r: fc.oneof(fc.anything(), fc.constant(CRAWL)) }, { requiredKeys: [] });
    fc.assert(fc.property(forged, (raw) => refusedOrDecoded(Buffer.from(JSON.stringify(raw) ?? 'null').toString('base64url'))));
  });
});
