import { RE2 } from 're2-wasm';

/**
 * Regular expressions a client writes (a monitor's ignore patterns, a crawl scope's `re:` rules),
 * run by RE2: linear time whatever is written, so no pattern can stall a worker. re2-wasm keeps
 * each compiled expression in a fixed wasm heap and frees nothing on its own, so an expression
 * compiled per request and dropped leaks until the heap is full. Here every expression is compiled
 * once per source and flags, kept in a bounded table that frees what it drops; a caller never holds
 * one past its synchronous use (ask again: the table answers from memory).
 */
const KEPT = 1000;
const table = new Map<string, RE2>();

/** The compiled expression for `source` with `flags`, its lastIndex at 0. Throws when it is not RE2. */
export function clientPattern(source: string, flags: string): RE2 {
  const key = `${flags}/${source}`;
  let expression = table.get(key);
  if (!expression) {
    expression = new RE2(source, flags);
    if (table.size >= KEPT) {
      for (const old of table.values()) release(old);
      table.clear();
    }
    table.set(key, expression);
  }
  expression.lastIndex = 0;
  return expression;
}

/** Why `source` is not an RE2 expression (with `flags`), or null: compiled into the table, as its first use will be. */
export function clientPatternProblem(source: string, flags: string): string | null {
  try {
    clientPattern(source, flags);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** How many compiled expressions the table holds (its bound is what keeps the wasm heap from filling). */
export function clientPatternsHeld(): number {
  return table.size;
}

/** Frees an expression's wasm memory (embind's delete on the wrapper, which re2-wasm does not expose). */
function release(expression: RE2): void {
  (expression as unknown as { wrapper?: { delete?: () => void } }).wrapper?.delete?.();
}
