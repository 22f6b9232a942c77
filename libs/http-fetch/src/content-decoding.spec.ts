import fc from 'fast-check';
import zlib from 'node:zlib';
import { acceptEncodingWithin, DECODABLE_ENCODINGS, decodeBody } from './content-decoding';
import { BodyTooLarge, UndecodableBody } from './fetch-failures';

type Coding = 'gzip' | 'deflate' | 'deflate-raw' | 'br' | 'zstd';

/** Encodes as a server would; `deflate-raw` is a server sending raw deflate under "deflate". */
function encode(body: Buffer, coding: Coding): Buffer {
  switch (coding) {
    case 'gzip':
      return zlib.gzipSync(body, { level: 1 });
    case 'deflate':
      return zlib.deflateSync(body, { level: 1 });
    case 'deflate-raw':
      return zlib.deflateRawSync(body, { level: 1 });
    case 'br':
      return zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } });
    case 'zstd':
      return (zlib as unknown as { zstdCompressSync(b: Buffer): Buffer }).zstdCompressSync(body);
  }
}
const headerName = (coding: Coding) => (coding === 'deflate-raw' ? 'deflate' : coding);
const codings: Coding[] = ['gzip', 'deflate', 'deflate-raw', 'br', ...(DECODABLE_ENCODINGS.includes('zstd') ? (['zstd'] as const) : [])];

/** `copies` gzip members of `member` zero bytes each: a valid gzip body of copies × member bytes, cheap to build. */
function gzipBomb(member: number, copies: number): Buffer {
  const one = zlib.gzipSync(Buffer.alloc(member), { level: 9 });
  return Buffer.concat(Array.from({ length: copies }, () => one));
}

describe('decodeBody', () => {
  it('undoes any stack of codings exactly, and refuses as soon as any layer passes the budget', async () => {
    const MAX = 64 * 1024;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...codings), { minLength: 0, maxLength: 3 }),
        // Compressible bodies (repeated text) around the budget: under it, at it, far over it.
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 4 * MAX }),
        fc.constantFrom(', ', ',', ' ,  '),
        async (stack, unit, size, separator) => {
          const plain = Buffer.from(unit.repeat(Math.ceil(size / Math.max(1, Buffer.byteLength(unit)))).slice(0, size));
          const encoded = stack.reduce<Buffer>((body, coding) => encode(body, coding), plain);
          const header = stack.map(headerName).join(separator);
          // Every intermediate layer is smaller than the plain body for compressible text, so
          // the plain body's size decides (a layer of random data could be larger; never here).
          if (plain.length > MAX) {
            await expect(decodeBody(encoded, header, MAX)).rejects.toBeInstanceOf(BodyTooLarge);
          } else {
            expect((await decodeBody(encoded, header, MAX)).equals(plain)).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('stops a 1 GiB gzip bomb at the budget: under 50 MB of extra memory', async () => {
    const bomb = gzipBomb(16 * 1024 * 1024, 64); // 64 × 16 MiB = 1 GiB of zeros, ~1 MB on the wire
    expect(bomb.length).toBeLessThan(1.5 * 1024 * 1024);
    global.gc?.();
    const before = process.memoryUsage();
    await expect(decodeBody(bomb, 'gzip', 10 * 1024 * 1024)).rejects.toBeInstanceOf(BodyTooLarge);
    const after = process.memoryUsage();
    expect(after.rss - before.rss).toBeLessThan(50 * 1024 * 1024);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(50 * 1024 * 1024);
  });

  it('stops nested bombs (br inside gzip, gzip inside br) at the budget of the first layer that passes it', async () => {
    const zeros = Buffer.alloc(64 * 1024 * 1024);
    const brInGzip = encode(encode(zeros, 'br'), 'gzip');
    await expect(decodeBody(brInGzip, 'br, gzip', 1024 * 1024)).rejects.toBeInstanceOf(BodyTooLarge);
    const gzipInBr = encode(encode(zeros, 'gzip'), 'br');
    await expect(decodeBody(gzipInBr, 'gzip, br', 1024 * 1024)).rejects.toBeInstanceOf(BodyTooLarge);
  });

  (DECODABLE_ENCODINGS.includes('zstd') ? it : it.skip)(
    'zstd: decodes a page just under the budget, refuses a frame whose window passes it',
    async () => {
      const z = zlib as unknown as { zstdCompressSync(b: Buffer, o?: object): Buffer; constants: Record<string, number> };
      const MAX = 10 * 1024 * 1024;
      const page = Buffer.from('<p>row</p>'.repeat((MAX - 1024) / 10));
      expect((await decodeBody(z.zstdCompressSync(page), 'zstd', MAX)).equals(page)).toBe(true);
      // Streamed (no content size in the header) with a 128 MB window: the decoder may not reserve it.
      const compressor = (zlib as unknown as { createZstdCompress(o: object): NodeJS.ReadWriteStream }).createZstdCompress({
        params: { [z.constants.ZSTD_c_windowLog!]: 27 },
      });
      const chunks: Buffer[] = [];
      compressor.on('data', (chunk: Buffer) => chunks.push(chunk));
      const done = new Promise((resolve) => compressor.on('end', resolve));
      compressor.end(Buffer.alloc(1024));
      await done;
      const wide = Buffer.concat(chunks);
      await expect(decodeBody(wide, 'zstd', MAX)).rejects.toBeInstanceOf(UndecodableBody);
    },
  );

  it('refuses an unknown coding and data that is not what the header says, as undecodable', async () => {
    await expect(decodeBody(Buffer.from('plain'), 'compress', 1024)).rejects.toBeInstanceOf(UndecodableBody);
    await expect(decodeBody(Buffer.from('not gzip at all'), 'gzip', 1024)).rejects.toBeInstanceOf(UndecodableBody);
    await expect(decodeBody(Buffer.from('not brotli at all'), 'br', 1024)).rejects.toBeInstanceOf(UndecodableBody);
  });

  it('passes identity, an empty body and a missing header through', async () => {
    expect((await decodeBody(Buffer.from('as is'), undefined, 1024)).toString()).toBe('as is');
    expect((await decodeBody(Buffer.from('as is'), 'identity', 1024)).toString()).toBe('as is');
    expect((await decodeBody(Buffer.alloc(0), 'gzip', 1024)).length).toBe(0);
    expect((await decodeBody(encode(Buffer.from('two headers'), 'gzip'), ['gzip'], 1024)).toString()).toBe('two headers');
  });

  it('asks only for codings it can decode, keeping the rest of the header', () => {
    const asked = acceptEncodingWithin('gzip, deflate, br, zstd, compress;q=0.1');
    expect(asked.split(', ')).toEqual([...DECODABLE_ENCODINGS]);
    expect(acceptEncodingWithin('br;q=1.0, identity;q=0.5, *;q=0')).toBe('br;q=1.0, identity;q=0.5, *;q=0');
  });
});
