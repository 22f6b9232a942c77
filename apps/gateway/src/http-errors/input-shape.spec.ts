import fc from 'fast-check';
import { capProblems, INPUT_SHAPE_LIMITS, inputShapeProblems, jsonTextShapeProblem } from './input-shape';
import { firstInvalidUtf8Offset } from './json-body.parser';

// Seeds are printed by fast-check on failure; FUZZ_SEED replays one.
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const small = { maxDepth: 6, maxNodes: 200, maxArrayLength: 8, maxObjectKeys: 8, maxKeyLength: 16, maxProblems: 5 };

/** A JSON value with no NUL and no lone surrogate anywhere (keys included). */
const storableJson = fc.jsonValue({ maxDepth: 5 }).filter((v) => !/\u0000|[\uD800-\uDFFF]/.test(JSON.stringify(v) ?? ''));

function nest(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { k: value };
  return value;
}

describe('input shape limits', () => {
  it('accepts every storable JSON value within the limits, in the parsed walk and the text scan alike', () => {
    fc.assert(
      fc.property(storableJson, (value) => {
        expect(inputShapeProblems(value, ['body'])).toEqual([]);
        expect(jsonTextShapeProblem(JSON.stringify(value))).toBeNull();
      }),
      { numRuns: 500, seed },
    );
  });

  it('refuses any depth past the limit without exhausting the stack (text and walk)', () => {
    fc.assert(
      fc.property(fc.integer({ min: INPUT_SHAPE_LIMITS.maxDepth + 1, max: 100_000 }), (depth) => {
        const text = '['.repeat(depth) + ']'.repeat(depth);
        expect(jsonTextShapeProblem(text)?.type).toBe('too_deep');
        expect(inputShapeProblems(JSON.parse(text), ['body'])).toEqual([expect.objectContaining({ type: 'too_deep' })]);
      }),
      { numRuns: 30, seed },
    );
    expect(inputShapeProblems(nest(INPUT_SHAPE_LIMITS.maxDepth, 'leaf'), ['body'])).toEqual([]);
  });

  it('refuses too many keys, items and values, and agrees between text and walk', () => {
    fc.assert(
      fc.property(fc.integer({ min: 9, max: 200 }), fc.constantFrom('object', 'array', 'both'), (n, kind) => {
        const value =
          kind === 'object'
            ? Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))
            : kind === 'array'
              ? Array.from({ length: n }, (_, i) => i)
              : Array.from({ length: 8 }, () => Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, [1, 2, 3, 4, 5, 6, 7]])));
        const walk = inputShapeProblems(value, ['body'], small);
        const text = jsonTextShapeProblem(JSON.stringify(value), small);
        expect(walk.length).toBeGreaterThan(0);
        expect(text).not.toBeNull();
        expect(['too_many_keys', 'too_long', 'too_many_values']).toContain(text!.type);
      }),
      { numRuns: 100, seed },
    );
  });

  it('finds a NUL or lone surrogate wherever it is, in a value or a key, and names its place', () => {
    const bad = fc.constantFrom('\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF');
    fc.assert(
      fc.property(
        fc.string({ maxLength: 10 }),
        bad,
        fc.string({ maxLength: 10 }),
        fc.integer({ min: 0, max: 10 }),
        fc.boolean(),
        (before, char, after, depth, inKey) => {
          const text = `${before.replace(/[\uD800-\uDFFF\u0000]/g, '')}${char}${after.replace(/[\uD800-\uDFFF\u0000]/g, '')}`;
          const value = nest(depth, inKey ? { [text]: 1 } : { field: text });
          const problems = inputShapeProblems(value, ['body']);
          expect(problems).toHaveLength(1);
          expect(problems[0].type).toBe(inKey ? 'invalid_key' : 'string_invalid_character');
          expect(problems[0].loc.length).toBe(depth + 2);
          // What is echoed back is itself storable.
          expect(JSON.stringify(problems[0].loc)).not.toMatch(/\\u0000|\\ud[89ab]/i);
        },
      ),
      { numRuns: 300, seed },
    );
    // A proper pair (an emoji) is fine.
    expect(inputShapeProblems({ ok: 'smile 😀' }, ['body'])).toEqual([]);
  });

  it('is not fooled by structure inside strings', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[\[\]{},:"\\a]{0,40}$/), { maxLength: 8 }), (texts) => {
        expect(jsonTextShapeProblem(JSON.stringify({ texts }), small)).toBeNull();
      }),
      { numRuns: 300, seed },
    );
  });

  it('lists at most maxProblems problems and says how many more there were', () => {
    const value = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, `bad\u0000${i}`]));
    const problems = inputShapeProblems(value, ['body'], small);
    expect(problems).toHaveLength(6);
    expect(problems[5]).toMatchObject({ type: 'too_many_problems', msg: expect.stringMatching(/^3 more/) });
    expect(
      capProblems(
        Array.from({ length: 60 }, () => ({ loc: ['body'], msg: 'x', type: 't' })),
        ['body'],
      ),
    ).toHaveLength(INPUT_SHAPE_LIMITS.maxProblems + 1);
  });

  it('locates the first invalid UTF-8 byte', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.constantFrom([0xff], [0xc0, 0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf5, 0x80, 0x80, 0x80]),
        (prefix, badBytes) => {
          const head = Buffer.from(prefix.toWellFormed(), 'utf8');
          expect(firstInvalidUtf8Offset(Buffer.concat([head, Buffer.from(badBytes)]))).toBe(head.length);
        },
      ),
      { numRuns: 200, seed },
    );
  });
});
