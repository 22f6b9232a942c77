/**
 * class-transformer `@Transform` for a boolean query parameter. Query strings are text, and
 * implicit conversion would make Boolean("false") true: only true/false/1/0 become booleans, and
 * anything else stays as sent so that the validator reports it.
 */
export function queryBoolean({ obj, key }: { obj: Record<string, unknown>; key: string }): unknown {
  return ({ true: true, '1': true, false: false, '0': false } as Record<string, boolean>)[String(obj[key])] ?? obj[key];
}
