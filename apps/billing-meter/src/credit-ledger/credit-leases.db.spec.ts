import type { ChargeLeasedCreditsCommand } from '@lib/contracts';
import type { DatabaseConnection } from '@lib/persistence';
import { MovableClock } from '../../../../test/support/movable-clock';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { ReservationNotFoundError } from '../billing-meter.errors';
import { ChargeGroupCommit } from './charge-group-commit';
import { CreditLedger } from './credit-ledger';

/** Credit leases (decision 0013) against the real ledger tables, on both databases. */
describe.each(DATABASE_BACKENDS)('credit leases (%s database)', (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  const clock = new MovableClock(new Date('2026-11-22T10:00:00Z'));
  let ledger: CreditLedger;
  let n = 0;
  const client = () => `lease-client-${(n += 1)}`;
  const lease = (clientId: string, limit: number | null, needed: number, wanted: number, leaseId: string | null = null) =>
    ledger.lease({ client_id: clientId, monthly_credits: limit, lease_id: leaseId, needed, wanted, ttl_seconds: 600 });
  const charge = (clientId: string, leaseId: string, key: string, credits = 1): ChargeLeasedCreditsCommand => ({
    client_id: clientId,
    monthly_credits: null,
    lease_id: leaseId,
    credits,
    charge_key: key,
    mode: 'simple',
    details: { request_id: key, domain: 'example.com', status_code: 200, block_reason: null, proxy: null, attempts: 1, success: true },
  });
  const ledgerSum = async (clientId: string) =>
    (await db.prisma.creditLedgerEntry.findMany({ where: { clientId } })).reduce((sum, e) => sum + e.credits, 0);

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'leases'));
    ledger = new CreditLedger(db, clock);
  });
  afterAll(async () => close());
  beforeEach(() => clock.set('2026-11-22T10:00:00Z'));

  it('grants what is needed plus at most half of what would remain, up to what is wanted', async () => {
    const id = client();
    const first = await lease(id, 100, 1, 60);
    // 1 needed; 60 wanted but only half of the 99 left: 49 more.
    expect(first).toMatchObject({ granted: true, lease_credits: 50, quota: { used: 50, remaining: 50 } });
    const grown = await lease(id, 100, 10, 10, first.lease_id);
    expect(grown).toMatchObject({ granted: true, lease_id: first.lease_id, lease_credits: 60, quota: { used: 60 } });
    const refused = await lease(id, 100, 41, 41, first.lease_id);
    expect(refused).toMatchObject({ granted: false, lease_id: first.lease_id, lease_credits: 60, quota: { used: 60, remaining: 40 } });
    expect(await ledger.quota(id, 100)).toMatchObject({ used: 60 });
  });

  it('renews a lease without growing it (needed 0) and opens a new one when the named lease has expired', async () => {
    const id = client();
    const first = await lease(id, null, 5, 5);
    clock.advance(500_000);
    const renewed = await lease(id, null, 0, 0, first.lease_id);
    expect(renewed).toMatchObject({ granted: true, lease_id: first.lease_id, lease_credits: 5 });
    expect(renewed.expires_at).toBe(clock.now().getTime() + 600_000);
    clock.advance(700_000);
    const replaced = await lease(id, null, 2, 2, first.lease_id);
    expect(replaced.lease_id).not.toBe(first.lease_id);
    expect(replaced.lease_credits).toBe(2);
  });

  it('never overdraws across gateways: 30 concurrent lease calls against 20 credits grant at most 20 in all', async () => {
    const id = client();
    const replies = await Promise.all(Array.from({ length: 30 }, () => lease(id, 20, 1, 4)));
    const granted = replies.filter((r) => r.granted).reduce((sum, r) => sum + r.lease_credits, 0);
    expect(granted).toBeLessThanOrEqual(20);
    expect(replies.filter((r) => r.granted).length).toBeGreaterThanOrEqual(1);
    expect((await ledger.quota(id, 20)).used).toBe(granted);
  });

  it('records charges in one call: the lease shrinks by what was charged and the month used stays the same', async () => {
    const id = client();
    const { lease_id } = await lease(id, 100, 10, 10);
    const replies = await ledger.chargeLeased([1, 2, 3].map((i) => charge(id, lease_id!, `${id}-${i}`, i)));
    expect(replies.every((r) => !(r instanceof Error) && r.newly_charged)).toBe(true);
    expect(await ledgerSum(id)).toBe(6);
    expect(await ledger.quota(id, 100)).toMatchObject({ used: 10 });
    const held = await db.prisma.creditReservation.findUnique({ where: { id: lease_id! } });
    expect(held?.credits).toBe(4);
  });

  it('records a replayed charge key once and answers with the first entry', async () => {
    const id = client();
    const { lease_id } = await lease(id, 100, 5, 5);
    const [first] = await ledger.chargeLeased([charge(id, lease_id!, `${id}-once`)]);
    const [again] = await ledger.chargeLeased([charge(id, lease_id!, `${id}-once`)]);
    expect(again).toEqual({ ...(first as object), newly_charged: false });
    expect(await ledgerSum(id)).toBe(1);
  });

  it('refuses a charge against an expired lease and records nothing: its credits went back to the month', async () => {
    const id = client();
    const { lease_id } = await lease(id, 100, 5, 5);
    clock.advance(601_000);
    expect(await ledger.quota(id, 100)).toMatchObject({ used: 0 });
    const [refused] = await ledger.chargeLeased([charge(id, lease_id!, `${id}-late`)]);
    expect(refused).toBeInstanceOf(ReservationNotFoundError);
    expect(await ledgerSum(id)).toBe(0);
  });

  it('refuses a charge naming another client’s lease', async () => {
    const owner = client();
    const other = client();
    const { lease_id } = await lease(owner, 100, 5, 5);
    const [refused] = await ledger.chargeLeased([charge(other, lease_id!, `${other}-theft`)]);
    expect(refused).toBeInstanceOf(ReservationNotFoundError);
    expect(await ledgerSum(other)).toBe(0);
  });

  it('group commit: 200 concurrent charges, some repeated, are each answered after being recorded, once per key', async () => {
    const id = client();
    const { lease_id } = await lease(id, null, 200, 200);
    const group = new ChargeGroupCommit(ledger);
    const keys = Array.from({ length: 200 }, (_, i) => `${id}-${i % 150}`);
    const replies = await Promise.all(keys.map((key) => group.charge(charge(id, lease_id!, key))));
    expect(replies.filter((r) => r.newly_charged)).toHaveLength(150);
    expect(new Set(replies.map((r) => r.entry_id)).size).toBe(150);
    expect(await ledgerSum(id)).toBe(150);
    expect(await ledger.quota(id, null)).toMatchObject({ used: 200 });
  });
});
