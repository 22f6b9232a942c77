import type { DatabaseConnection } from '@lib/persistence';
import { MovableClock } from '../../../../test/support/movable-clock';
import { DATABASE_BACKENDS, openTestDatabase } from '../../../../test/support/test-databases';
import { ReservationNotFoundError } from '../billing-meter.errors';
import { CreditLedger } from './credit-ledger';

describe.each(DATABASE_BACKENDS)(`${CreditLedger.name} (%s database)`, (backend) => {
  let db: DatabaseConnection;
  let close: () => Promise<void>;
  const clock = new MovableClock(new Date('2026-11-22T10:00:00Z'));
  let ledger: CreditLedger;
  let n = 0;
  const client = () => `client-${(n += 1)}`;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(backend, 'ledger'));
    ledger = new CreditLedger(db, clock);
  });
  afterAll(async () => close());
  beforeEach(() => clock.set('2026-11-22T10:00:00Z'));

  it('starts a month at zero with the reset at the next UTC month', async () => {
    expect(await ledger.quota(client(), 1000)).toEqual({
      month: '2026-11',
      limit: 1000,
      used: 0,
      remaining: 1000,
      resets_at: Date.parse('2026-12-01T00:00:00Z') / 1000,
      as_of: clock.now().getTime(),
    });
    expect(await ledger.quota(client(), null)).toMatchObject({ limit: null, remaining: null });
  });

  it('never overdraws under concurrent reservations: 25 holds of 1 against 10 credits grant exactly 10', async () => {
    const id = client();
    const replies = await Promise.all(
      Array.from({ length: 25 }, () => ledger.reserve({ client_id: id, monthly_credits: 10, credits: 1, ttl_seconds: 60 })),
    );
    expect(replies.filter((r) => r.granted)).toHaveLength(10);
    expect(await ledger.quota(id, 10)).toMatchObject({ used: 10, remaining: 0 });
  });

  it('charges a commit once, whatever the number of retries, at the actual cost', async () => {
    const id = client();
    const hold = await ledger.reserve({ client_id: id, monthly_credits: 100, credits: 5, ttl_seconds: 60 });
    const first = await ledger.commit(
      {
        reservation_id: hold.reservation_id!,
        credits: 1,
        charge_key: `req-${id}`,
        mode: 'simple',
        details: { request_id: id, domain: 'example.com', status_code: 200, block_reason: null, proxy: null, attempts: 1, success: true },
      },
      100,
    );
    const replay = await ledger.commit({ reservation_id: hold.reservation_id!, credits: 1, charge_key: `req-${id}`, mode: 'simple' }, 100);
    expect(first).toMatchObject({ newly_charged: true, quota: { used: 1, remaining: 99 } });
    expect(replay).toMatchObject({ newly_charged: false, entry_id: first.entry_id, quota: { used: 1 } });
    const rows = await db.prisma.creditLedgerEntry.findMany({ where: { clientId: id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ credits: 1, mode: 'simple', month: '2026-11', details: { domain: 'example.com' } });
  });

  it('keeps the monthly balance equal to the sum of its ledger entries under concurrent commits and retries', async () => {
    const id = client();
    const holds = await Promise.all(
      Array.from({ length: 12 }, () => ledger.reserve({ client_id: id, monthly_credits: 1000, credits: 5, ttl_seconds: 60 })),
    );
    const commits = holds.flatMap((h, i) => {
      const command = {
        reservation_id: h.reservation_id!,
        credits: i % 2 === 0 ? 5 : 1,
        charge_key: `c-${id}-${i}`,
        mode: 'browser' as const,
      };
      return [ledger.commit(command, 1000), ledger.commit(command, 1000)];
    });
    const replies = await Promise.all(commits);
    expect(replies.filter((r) => r.newly_charged)).toHaveLength(12);
    const [balance] = await db.sql.query<{ charged: number }>('select charged from credit_balances where client_id = $1', [id]);
    const [sum] = await db.sql.query<{ total: number }>(
      'select sum(credits)::int as total from credit_ledger_entries where client_id = $1',
      [id],
    );
    expect(balance.charged).toBe(6 * 5 + 6 * 1);
    expect(sum.total).toBe(balance.charged);
    expect(await ledger.quota(id, 1000)).toMatchObject({ used: 36, remaining: 964 });
  });

  it('returns held credits on release and charges nothing', async () => {
    const id = client();
    const hold = await ledger.reserve({ client_id: id, monthly_credits: 10, credits: 5, ttl_seconds: 60 });
    expect(hold.quota.used).toBe(5);
    expect((await ledger.release(hold.reservation_id!, 10)).quota).toMatchObject({ used: 0, remaining: 10 });
    expect(await db.prisma.creditLedgerEntry.count({ where: { clientId: id } })).toBe(0);
    await expect(ledger.release(hold.reservation_id!)).rejects.toBeInstanceOf(ReservationNotFoundError);
  });

  it('stops counting a reservation its holder never settled once it expires', async () => {
    const id = client();
    await ledger.reserve({ client_id: id, monthly_credits: 10, credits: 10, ttl_seconds: 30 });
    expect((await ledger.reserve({ client_id: id, monthly_credits: 10, credits: 1, ttl_seconds: 30 })).granted).toBe(false);
    clock.set('2026-11-22T10:00:31Z');
    expect((await ledger.reserve({ client_id: id, monthly_credits: 10, credits: 1, ttl_seconds: 30 })).granted).toBe(true);
  });

  it('starts the next month from zero', async () => {
    const id = client();
    const hold = await ledger.reserve({ client_id: id, monthly_credits: 5, credits: 5, ttl_seconds: 60 });
    await ledger.commit({ reservation_id: hold.reservation_id!, credits: 5, charge_key: `m-${id}`, mode: 'browser' }, 5);
    expect(await ledger.quota(id, 5)).toMatchObject({ used: 5, remaining: 0 });
    clock.set('2026-12-01T00:00:00Z');
    expect(await ledger.quota(id, 5)).toMatchObject({ month: '2026-12', used: 0, remaining: 5 });
  });
});
