import fc from 'fast-check';
import { GroupedCalls } from './grouped-calls';

describe('GroupedCalls', () => {
  it('runs a lone call at once, by itself', async () => {
    const groups: number[][] = [];
    const calls = new GroupedCalls<number, number>(async (items) => (groups.push(items), items.map((n) => n * 2)));
    await expect(calls.call(4)).resolves.toBe(8);
    expect(groups).toEqual([[4]]);
  });

  it('groups the calls that arrive while a group runs, at most maxGroup at a time', async () => {
    const groups: number[][] = [];
    const calls = new GroupedCalls<number, number>(async (items) => {
      groups.push(items);
      await new Promise((r) => setTimeout(r, 5));
      return items.map((n) => -n);
    }, 3);
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => calls.call(n)));
    expect(answers).toEqual([-1, -2, -3, -4, -5, -6]);
    expect(groups).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('fails every call of a failed group and still runs the next', async () => {
    let first = true;
    const calls = new GroupedCalls<string, string>(async (items) => {
      const failing = first;
      first = false;
      await new Promise((r) => setTimeout(r, 1));
      if (failing) throw new Error('statement failed');
      return items;
    });
    const [a, b, c] = await Promise.allSettled([calls.call('a'), calls.call('b'), calls.call('c')]);
    expect(a).toMatchObject({ status: 'rejected' });
    expect([b, c]).toEqual([
      { status: 'fulfilled', value: 'b' },
      { status: 'fulfilled', value: 'c' },
    ]);
  });

  it('answers every call with its own item’s result, however the calls interleave', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer(), fc.nat(3)), { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        async (items, maxGroup) => {
          const calls = new GroupedCalls<number, string>(async (group) => {
            await new Promise((r) => setTimeout(r, group.length % 2));
            return group.map((n) => `#${n}`);
          }, maxGroup);
          const answers = await Promise.all(
            items.map(async ([n, delay]) => {
              await new Promise((r) => setTimeout(r, delay));
              return calls.call(n);
            }),
          );
          expect(answers).toEqual(items.map(([n]) => `#${n}`));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('refuses a group answered with the wrong number of results', async () => {
    const calls = new GroupedCalls<number, number>(async () => []);
    await expect(calls.call(1)).rejects.toThrow('answered with 0 results');
  });

  it('waits for company when asked to linger, and idle() resolves once every call is answered', async () => {
    const groups: number[][] = [];
    const calls = new GroupedCalls<number, null>(async (items) => (groups.push(items), items.map(() => null)), 100, 20);
    const answered = [1, 2, 3].map((n) => calls.call(n));
    await calls.idle();
    expect(groups).toEqual([[1, 2, 3]]);
    await expect(Promise.all(answered)).resolves.toEqual([null, null, null]);
    await calls.idle();
  });
});
