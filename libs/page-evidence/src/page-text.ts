import type { Signature } from './protection-rules';

/** One HTTP answer as the rules read it. */
export interface ObservedPage {
  statusCode: number;
  /** Lower-case header names; set-cookie may be an array. */
  headers: Record<string, string | string[] | undefined>;
  /** Decoded text of an HTML/text body; null for binary or no body. */
  body: string | null;
}

// Runs on every response, so no DOM: dropping non-rendered blocks, comments, tags and entities
// measures the visible text ~25x faster than a full parse (0.2 vs 5.6 ms on a 20 KB page).
export function visibleTextOf(html: string): string {
  return html
    .replace(/<(script|style|noscript|template|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#\d+|#x[0-9a-f]+|\w+);/gi, 'x')
    .replace(/\s+/g, ' ')
    .trim();
}

export function titleOf(html: string): string {
  return (/<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1] ?? '').trim().toLowerCase();
}

/** The signatures a page matches, each with its first piece of evidence (`kind:name:evidence`) pushed to `hits`. */
export function matchSignatures(
  signatures: Signature[],
  lowerHtml: string,
  headers: ObservedPage['headers'],
  hits: string[],
  kind: string,
): string[] {
  const cookies = [headers['set-cookie']]
    .flat()
    .filter((c): c is string => typeof c === 'string')
    .map((c) => c.split('=')[0].trim().toLowerCase());
  const server = String(headers.server ?? '').toLowerCase();
  const found: string[] = [];
  for (const signature of signatures) {
    const marker = signature.markers.find((m) => lowerHtml.includes(m));
    const header = signature.headers?.find((h) => headers[h] !== undefined);
    const cookie = signature.cookies?.find((prefix) => cookies.some((c) => c.startsWith(prefix)));
    const viaServer = signature.servers?.find((s) => server.includes(s));
    const evidence = marker
      ? `marker:${marker}`
      : header
        ? `header:${header}`
        : cookie
          ? `cookie:${cookie}`
          : viaServer
            ? `server:${viaServer}`
            : null;
    if (evidence) {
      found.push(signature.name);
      hits.push(`${kind}:${signature.name}:${evidence}`);
    }
  }
  return found;
}
