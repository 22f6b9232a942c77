import { creditMonthOf, creditMonthResetOf } from './credit-account';

describe('credit month', () => {
  it.each([
    ['2026-11-22T10:00:00Z', '2026-11', '2026-12-01T00:00:00Z'],
    ['2026-12-31T23:59:59Z', '2026-12', '2027-01-01T00:00:00Z'],
    ['2028-02-29T12:00:00Z', '2028-02', '2028-03-01T00:00:00Z'],
  ])('%s is in %s and resets at %s (UTC)', (at, month, reset) => {
    expect(creditMonthOf(new Date(at))).toBe(month);
    expect(creditMonthResetOf(new Date(at))).toBe(Date.parse(reset) / 1000);
  });
});
