import fc from 'fast-check';
import { PhaseTimings, REQUEST_PHASES } from './phase-timings';

const parse = (header: string) =>
  Object.fromEntries(header.split(', ').map((part) => [part.split(';dur=')[0], Number(part.split(';dur=')[1])]));

describe('PhaseTimings', () => {
  it('writes phases that sum to the total, whatever is marked, split or repeated', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(...REQUEST_PHASES),
            fc.tuple(fc.constantFrom(...REQUEST_PHASES), fc.constantFrom(...REQUEST_PHASES), fc.double({ min: -5, max: 1e6, noNaN: true })),
          ),
          {
            maxLength: 20,
          },
        ),
        (steps) => {
          const timings = new PhaseTimings();
          for (const step of steps) {
            if (typeof step === 'string') timings.mark(step);
            else timings.split(step[0], step[1], step[2]);
          }
          const phases = parse(timings.header());
          const { total, ...rest } = phases;
          const sum = Object.values(rest).reduce((a, b) => a + b, 0);
          expect(Object.values(rest).every((ms) => ms >= 0)).toBe(true);
          // Each figure is rounded to 0.01 ms in the header.
          expect(Math.abs(sum - total)).toBeLessThanOrEqual(0.01 * (Object.keys(rest).length + 1));
        },
      ),
    );
  });

  it('names the phases in request order, as a Server-Timing header', () => {
    const timings = new PhaseTimings();
    timings.mark('admission');
    timings.mark('validation');
    timings.mark('bus');
    timings.split('bus', 'engine', 0);
    expect(timings.header()).toMatch(
      /^admission;dur=\d+\.\d{2}, validation;dur=\d+\.\d{2}, bus;dur=\d+\.\d{2}, engine;dur=0\.00, respond;dur=\d+\.\d{2}, total;dur=\d+\.\d{2}$/,
    );
  });
});
