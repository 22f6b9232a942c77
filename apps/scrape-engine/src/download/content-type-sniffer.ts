/** Magic numbers of the file types a download most often is, checked when the header is vague. */
const SIGNATURES: Array<[string, number[]]> = [
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['image/png', [0x89, 0x50, 0x4e, 0x47]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
  ['application/zip', [0x50, 0x4b, 0x03, 0x04]],
  ['application/gzip', [0x1f, 0x8b]],
  ['application/x-7z-compressed', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
];

/**
 * The MIME type of a downloaded body: the Content-Type header's type when it is specific,
 * otherwise what the first bytes say (RIFF…WEBP included), otherwise the header or null.
 */
export function detectContentType(header: string | null, body: Buffer): string | null {
  const declared = header?.split(';')[0].trim().toLowerCase() || null;
  if (declared && declared !== 'application/octet-stream' && declared !== 'binary/octet-stream') return declared;
  for (const [type, magic] of SIGNATURES) if (magic.every((byte, i) => body[i] === byte)) return type;
  if (body.subarray(0, 4).toString('latin1') === 'RIFF' && body.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return declared;
}
