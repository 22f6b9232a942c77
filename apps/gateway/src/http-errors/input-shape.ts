import type { ValidationProblem } from '@lib/contracts';
import { unstorableCharacterIn } from '@lib/persistence';

/**
 * Bounds on the shape of anything a client sends (body, query, path), checked before any
 * transform or validation touches it.
 *
 * Why here and not per field: class-transformer and class-validator recurse (a few thousand
 * nesting levels overflow the stack → 500), their cost grows with the number of keys (300 000
 * unknown keys held the event loop for 116 s and produced a 34 MB 422), and Postgres refuses NUL
 * characters and lone UTF-16 surrogates wherever a string lands (→ 500). One iterative walk over
 * the parsed value, bounded in work by `maxNodes`, refuses all of those as a class.
 *
 * The limits sit far above any valid request: the largest one, a 1000-request collection with
 * actions, extraction and headers on every item, has about 150 000 (counted on its text) and depth 14.
 */
export interface InputShapeLimits {
  maxDepth: number;
  /** Objects, arrays and scalars counted together. */
  maxNodes: number;
  maxArrayLength: number;
  maxObjectKeys: number;
  maxKeyLength: number;
  /** Problems listed in one answer; past that the answer says how many more there were. */
  maxProblems: number;
}

export const INPUT_SHAPE_LIMITS: InputShapeLimits = {
  maxDepth: 64,
  maxNodes: 300_000,
  maxArrayLength: 10_000,
  maxObjectKeys: 1_000,
  maxKeyLength: 1_024,
  maxProblems: 50,
};

/**
 * Walks `value` (iteratively: its own depth can never exhaust the stack) and lists what breaks
 * the limits, located like validation problems (`["body", "requests", 3, "url"]`). Structural
 * overflows (depth, node count) stop the walk at once: the rest is not worth reading.
 */
export function inputShapeProblems(
  value: unknown,
  root: Array<string | number>,
  limits: InputShapeLimits = INPUT_SHAPE_LIMITS,
): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  let omitted = 0;
  const report = (problem: ValidationProblem) => {
    if (problems.length < limits.maxProblems) problems.push(problem);
    else omitted += 1;
  };
  const stack: Array<{ value: unknown; loc: Array<string | number>; depth: number }> = [{ value, loc: root, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value: current, loc, depth } = stack.pop()!;
    nodes += 1;
    if (nodes > limits.maxNodes) {
      return [
        {
          loc: root,
          msg: `The input has more than ${limits.maxNodes} values (objects, arrays and scalars together).`,
          type: 'too_many_values',
        },
      ];
    }
    if (typeof current === 'string') {
      const bad = unstorableCharacterIn(current);
      if (bad) report({ loc, msg: `The text contains ${bad}.`, type: 'string_invalid_character' });
      continue;
    }
    if (typeof current === 'number' && !Number.isFinite(current)) {
      report({ loc, msg: 'The number is out of range.', type: 'number_out_of_range' });
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    // maxDepth counts nested objects and lists, as the text scan does.
    if (depth >= limits.maxDepth) {
      return [{ loc, msg: `The input nests deeper than ${limits.maxDepth} levels.`, type: 'too_deep' }];
    }
    if (Array.isArray(current)) {
      if (current.length > limits.maxArrayLength) {
        report({ loc, msg: `The list has ${current.length} items; at most ${limits.maxArrayLength} are accepted.`, type: 'too_long' });
        continue;
      }
      for (let i = current.length - 1; i >= 0; i -= 1) stack.push({ value: current[i], loc: [...loc, i], depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    if (keys.length > limits.maxObjectKeys) {
      report({ loc, msg: `The object has ${keys.length} keys; at most ${limits.maxObjectKeys} are accepted.`, type: 'too_many_keys' });
      continue;
    }
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i];
      const keyLoc = [...loc, printableKey(key)];
      const badKey = key.length > limits.maxKeyLength ? `more than ${limits.maxKeyLength} characters` : unstorableCharacterIn(key);
      if (badKey) {
        report({ loc: keyLoc, msg: `The key contains ${badKey}.`, type: 'invalid_key' });
        continue;
      }
      stack.push({ value: (current as Record<string, unknown>)[key], loc: keyLoc, depth: depth + 1 });
    }
  }
  if (omitted > 0)
    problems.push({ loc: root, msg: `${omitted} more problems of the same kinds are not listed.`, type: 'too_many_problems' });
  return problems;
}

/** A key as it may be echoed in a problem's `loc`: short, and free of what it was refused for. */
function printableKey(key: string): string {
  const short = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  return short.toWellFormed().replace(/\u0000/g, '\uFFFD');
}

/** At most `maxProblems` problems, then one saying how many more there were. */
export function capProblems(
  problems: ValidationProblem[],
  root: Array<string | number>,
  limits: InputShapeLimits = INPUT_SHAPE_LIMITS,
): ValidationProblem[] {
  if (problems.length <= limits.maxProblems) return problems;
  return [
    ...problems.slice(0, limits.maxProblems),
    { loc: root, msg: `${problems.length - limits.maxProblems} more problems are not listed.`, type: 'too_many_problems' },
  ];
}

/**
 * The structural limits checked on the raw JSON text, before JSON.parse: parsing is where the
 * cost of a hostile body lies (one object of 300 000 keys takes V8 about 0.5 s to build, all of
 * it on the event loop). One pass over the characters (about 6 ms per MB) counts values, depth,
 * keys per object and items per list; strings are skipped, escapes included. Malformed text is
 * left to JSON.parse to report.
 */
export function jsonTextShapeProblem(text: string, limits: InputShapeLimits = INPUT_SHAPE_LIMITS): ValidationProblem | null {
  // One frame per open object or list: how many separators it has seen so far.
  const open: Array<{ commas: number; object: boolean }> = [];
  let nodes = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
      continue;
    }
    switch (c) {
      case 0x22: // "
        inString = true;
        break;
      case 0x7b: // {
      case 0x5b: // [
        nodes += 1;
        if (open.length >= limits.maxDepth)
          return { loc: ['body'], msg: `The input nests deeper than ${limits.maxDepth} levels.`, type: 'too_deep' };
        open.push({ commas: 0, object: c === 0x7b });
        break;
      case 0x7d: // }
      case 0x5d: // ]
        open.pop();
        break;
      case 0x2c: {
        // ,
        const frame = open[open.length - 1];
        if (frame) {
          frame.commas += 1;
          if (frame.object && frame.commas >= limits.maxObjectKeys)
            return { loc: ['body'], msg: `An object has more than ${limits.maxObjectKeys} keys.`, type: 'too_many_keys' };
          if (!frame.object && frame.commas >= limits.maxArrayLength)
            return { loc: ['body'], msg: `A list has more than ${limits.maxArrayLength} items.`, type: 'too_long' };
        }
        nodes += 1;
        break;
      }
      case 0x3a: // :
        nodes += 1;
        break;
      default:
        break;
    }
    if (nodes > limits.maxNodes)
      return {
        loc: ['body'],
        msg: `The input has more than ${limits.maxNodes} values (objects, arrays and scalars together).`,
        type: 'too_many_values',
      };
  }
  return null;
}
