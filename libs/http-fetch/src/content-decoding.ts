import zlib from 'node:zlib';
import { BodyTooLarge, UndecodableBody } from './fetch-failures';

/**
 * Content-Encoding, decoded here rather than by got: got's byte limit (`downloadProgress`) counts
 * the bytes on the wire, so a 1 MB gzip that inflates to 1 GiB passed it and was held whole in
 * memory. Each layer is decoded by Node's zlib with `maxOutputLength`, which stops the inflater as
 * soon as its output passes the budget: a bomb costs at most the budget, whatever the ratio, the
 * nesting or the Content-Length said.
 */

type Decode = (body: Buffer, maxBytes: number, callback: (error: Error | null, result: Buffer) => void) => void;

// zstd is in zlib from Node.js 22.15/23.8; the production image runs 24. Where the runtime cannot
// decode it, it is not advertised either (a server may then not send it). The window a frame may
// make the decoder reserve is capped at 8 MB (windowLog 23, what RFC 8878 asks HTTP decoders to
// support), or at the budget rounded up to a power of two where that is larger: a single-segment
// frame's window is its whole content, and a page under the budget must decode.
const zstd = zlib as unknown as {
  zstdDecompress?: (
    body: Buffer,
    options: zlib.ZlibOptions & { params?: Record<number, number> },
    callback: (e: Error | null, r: Buffer) => void,
  ) => void;
  constants: Record<string, number>;
};
const zstdWindowLogMax = (maxBytes: number) => Math.max(23, Math.ceil(Math.log2(Math.max(1, maxBytes))));

const DECODERS: Record<string, Decode> = {
  // A truncated gzip or deflate stream still yields what it held, as in a browser.
  gzip: (body, max, callback) => zlib.gunzip(body, { maxOutputLength: max, finishFlush: zlib.constants.Z_SYNC_FLUSH }, callback),
  // "deflate" is meant as zlib-wrapped, but servers send raw deflate too; browsers take both.
  deflate: (body, max, callback) =>
    (zlibWrapped(body) ? zlib.inflate : zlib.inflateRaw)(
      body,
      { maxOutputLength: max, finishFlush: zlib.constants.Z_SYNC_FLUSH },
      callback,
    ),
  br: (body, max, callback) => zlib.brotliDecompress(body, { maxOutputLength: max }, callback),
  ...(zstd.zstdDecompress
    ? {
        zstd: (body: Buffer, max: number, callback: (e: Error | null, r: Buffer) => void) =>
          zstd.zstdDecompress!(
            body,
            { maxOutputLength: max, params: { [zstd.constants.ZSTD_d_windowLogMax!]: zstdWindowLogMax(max) } },
            callback,
          ),
      }
    : {}),
};
DECODERS['x-gzip'] = DECODERS.gzip!;

/** The content codings this runtime decodes within a budget, in a browser's order. */
export const DECODABLE_ENCODINGS: readonly string[] = ['gzip', 'deflate', 'br', 'zstd'].filter((coding) => coding in DECODERS);

/**
 * A browser's Accept-Encoding with the codings this runtime cannot decode taken out (their
 * q-values kept): what is asked for is what can be read.
 */
export function acceptEncodingWithin(browserValue: string): string {
  return browserValue
    .split(',')
    .map((part) => part.trim())
    .filter((part) => {
      const coding = part.split(';')[0]!.trim().toLowerCase();
      return coding === '*' || coding === 'identity' || coding in DECODERS;
    })
    .join(', ');
}

/**
 * The body as the server meant it: every coding in Content-Encoding undone, last applied first.
 * Throws BodyTooLarge when the body or any layer's output passes `maxBytes` (as soon as it does), and UndecodableBody for a
 * coding it does not know or data that is not what the header says.
 */
export async function decodeBody(raw: Buffer, contentEncoding: string | string[] | undefined, maxBytes: number): Promise<Buffer> {
  const codings = (Array.isArray(contentEncoding) ? contentEncoding.join(',') : (contentEncoding ?? ''))
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  // What arrives is bounded on the wire too; checked here as well, so no answer passes the budget.
  if (raw.length > maxBytes) throw new BodyTooLarge(`The response body exceeds ${maxBytes} bytes.`);
  let body = raw;
  for (const coding of codings.reverse()) {
    if (body.length === 0) return body;
    const decode = DECODERS[coding];
    if (!decode) throw new UndecodableBody(`The response is encoded as "${coding}", which cannot be decoded here.`);
    body = await new Promise<Buffer>((resolve, reject) =>
      decode(body, maxBytes, (error, result) => {
        if (!error) return resolve(result);
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
          return reject(new BodyTooLarge(`The response body exceeds ${maxBytes} bytes once decoded (${coding}).`));
        reject(new UndecodableBody(`The response body is not valid ${coding} data (${error.message}).`));
      }),
    );
  }
  return body;
}

/** A zlib header: deflate method, and the check bits make the first two bytes a multiple of 31. */
function zlibWrapped(body: Buffer): boolean {
  return body.length >= 2 && (body[0]! & 0x0f) === 8 && ((body[0]! << 8) | body[1]!) % 31 === 0;
}
