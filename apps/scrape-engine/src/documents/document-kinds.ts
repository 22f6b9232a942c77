/** The documents the engine reads into markdown (decision 0039); more formats join as rows. */
export type DocumentKind = 'pdf';

const MEDIA_TYPES: Record<string, DocumentKind> = { 'application/pdf': 'pdf', 'application/x-pdf': 'pdf' };
const EXTENSIONS: Record<string, DocumentKind> = { '.pdf': 'pdf' };
const MAGIC: Array<[DocumentKind, Buffer]> = [['pdf', Buffer.from('%PDF-')]];
/** Media types a server sends when it does not say what a file is. */
const VAGUE = new Set(['application/octet-stream', 'binary/octet-stream', 'application/download', 'application/force-download']);

/**
 * What document a response is, if any: its Content-Type when specific, else its first bytes, else
 * its URL's extension when the server said nothing useful. A PDF anywhere in its first 1 KB counts
 * (the format allows bytes before the header); HTML and text never do.
 */
export function documentKindOf(contentType: string | null, body: Buffer, url: string): DocumentKind | null {
  const declared = contentType?.split(';')[0].trim().toLowerCase() || null;
  if (declared && MEDIA_TYPES[declared]) return MEDIA_TYPES[declared];
  if (declared && !VAGUE.has(declared) && /^(text\/|application\/(xhtml|xml|json))/.test(declared)) return null;
  const head = body.subarray(0, 1024);
  for (const [kind, magic] of MAGIC) if (head.indexOf(magic) !== -1) return kind;
  if (declared && !VAGUE.has(declared)) return null;
  const path = (() => {
    try {
      return new URL(url).pathname.toLowerCase();
    } catch {
      return '';
    }
  })();
  const extension = /\.[a-z0-9]{1,5}$/.exec(path)?.[0];
  return extension ? (EXTENSIONS[extension] ?? null) : null;
}
