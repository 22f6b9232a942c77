/**
 * What Postgres can store of a JavaScript string. A text column refuses NUL ("invalid byte
 * sequence for encoding UTF8: 0x00"); jsonb also refuses the escapes `\u0000` and a lone
 * surrogate `\ud800` ("unsupported Unicode escape sequence", "invalid input syntax for type
 * json"). Such characters come from clients (refused at the gateway's edge) and from scraped
 * pages (which we must keep), so every value on its way to the database passes through here:
 * string parameters in SqlExecutor, JSON documents through storableJson(). Each offending code
 * unit becomes U+FFFD, the character Unicode reserves for exactly this.
 */
// NUL, or a UTF-16 surrogate that is not half of a pair (a proper pair, an emoji, is fine).
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What in `text` Postgres cannot store, described for a person, or null. The gateway refuses such
 * client input with this description; everything else on its way to the database is cleaned below.
 */
export function unstorableCharacterIn(text: string): string | null {
  const match = UNSTORABLE.exec(text);
  if (!match) return null;
  return match[0] === '\u0000' ? 'a NUL character (\\u0000)' : `a lone UTF-16 surrogate (\\u${match[0].charCodeAt(0).toString(16)})`;
}

export function storableText(text: string): string {
  // The common case (emoji included) costs one scan and no copy.
  if (!UNSTORABLE.test(text)) return text;
  return text.toWellFormed().replace(/\u0000/g, '\uFFFD');
}

/** JSON text of `value` that a jsonb (or json) column accepts; keys are cleaned like values. */
export function storableJson(value: unknown): string {
  return JSON.stringify(value, function storable(this: unknown, key: string, item: unknown) {
    if (typeof item === 'string') return storableText(item);
    if (item !== null && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).some((k) => UNSTORABLE.test(k))) {
      return Object.fromEntries(Object.entries(item).map(([k, v]) => [storableText(k), v]));
    }
    return item;
  });
}

/** Parameters of a SQL statement with every string made storable (other types pass as they are). */
export function storableParams(params: unknown[]): unknown[] {
  return params.some((p) => typeof p === 'string' && UNSTORABLE.test(p))
    ? params.map((p) => (typeof p === 'string' ? storableText(p) : p))
    : params;
}
