import { BadRequestError } from '@lib/errors';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
// A year of days per report keeps a query (and an hourly answer: 24 buckets a day) bounded.
const MAX_DAYS = 366;

/** The `date` parameter of the metrics endpoints as a UTC day range (both ends included). */
export function reportPeriodOf(date: string | undefined, options: { allowMonth: boolean }, today: Date): { from: string; to: string } {
  const value = (date ?? '').trim();
  if (value === '') {
    const day = today.toISOString().slice(0, 10);
    return { from: day, to: day };
  }
  if (options.allowMonth && MONTH.test(value)) {
    const [year, month] = value.split('-').map(Number);
    return { from: `${value}-01`, to: new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10) };
  }
  const [from, to = from, extra] = value.split(':');
  const forms = options.allowMonth ? 'YYYY-MM-DD, YYYY-MM-DD:YYYY-MM-DD or YYYY-MM' : 'YYYY-MM-DD or YYYY-MM-DD:YYYY-MM-DD';
  if (extra !== undefined || !isDay(from) || !isDay(to))
    throw new BadRequestError(`date must be ${forms} (real calendar days); got "${value}".`);
  if (from > to) throw new BadRequestError(`date range "${value}" ends before it starts.`);
  if ((Date.parse(to) - Date.parse(from)) / 86_400_000 + 1 > MAX_DAYS)
    throw new BadRequestError(`date range "${value}" spans more than ${MAX_DAYS} days.`);
  return { from, to };
}

function isDay(value: string): boolean {
  return DAY.test(value) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;
}
